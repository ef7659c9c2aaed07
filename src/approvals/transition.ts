import { defineScript } from '../redis/scripts.js';

/**
 * The approval state machine, as one Lua script: every transition of every approval goes through
 * it, so fifty concurrent Approve clicks, in one process or in several, see exactly one `ok`.
 *
 *   pending  → approved | rejected | cancelled | expired
 *   approved → running            (the worker, for the approved job only, with the approved payload's hash)
 *   approved → failed             (the approved job could not be queued)
 *   approved → cancelled          (the approved job was cancelled before it started; that job only)
 *   running  → done | failed      (the approved job only)
 *   failed   → approved           (Retry: an approver's click is a new decision, and a new job)
 *
 * Under a sign-off policy (`client`, `both`) an approval is made of steps on the pending request: the agency's,
 * the client's (or an admin's waiver of it). Each is recorded once (`signed` in the audit) and the request stays
 * pending until the frozen policy has every step it needs; the step that completes it is its `approved`. A
 * rejection of either step ends it.
 *
 * A pending request past its expiry (by Redis's clock, `TIME`) becomes `expired` on any other transition, so it
 * can never be approved even when the delayed expiry job has not run yet, nor by a process whose clock is behind. `running → running` for the same job is answered `ok`
 * without a change (a second attempt of that job). Each change is appended to the channel's audit stream,
 * trimmed by age (XADD MINID), in the same script.
 *
 * A request holds its channel's index entry `pending:<payload hash>` (approvalCreate) until it is rejected,
 * cancelled, expired, done or failed, when this script releases it; `done:<payload hash>` then names the last
 * approval that ran that payload. So an identical request finds the one in flight, or the one that already ran.
 *
 * KEYS: the approval's hash, the channel's audit stream, the channel's index of payload hashes.
 * ARGV: to, now (ms), actor, jobKey (to approved: its stem, numbered here), payload hash, note, recordId,
 * audit min id, record ttl (ms), '1' when the requester may not make this decision, the sign-off step
 * (approvals/signoff-rule.ts: '' | 'agency' | 'client' | 'waive'), the clicker's team (a client step's must be
 * the one frozen with their name). The channel of the audit key must be the approval's own (a card's button names
 * its own channel's approval), else it is 'missing'.
 * Answer: { 'ok' | 'partial' (a step recorded, still pending) | 'stepped' (that step was already decided) |
 * 'refused' | 'self' | 'missing', the state before, HGETALL after... }.
 */
export const approvalTransition = defineScript(
  'gwApprovalTransition',
  3,
  `
local NEXT = {
  pending = { approved = true, rejected = true, cancelled = true, expired = true },
  approved = { running = true, failed = true, cancelled = true },
  running = { done = true, failed = true },
  failed = { approved = true },
}
local to, now, actor, jobKey, hash, note, recordId, minId, ttl, forbidSelf =
  ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], tonumber(ARGV[9]), ARGV[10]
local h0 = redis.call('HMGET', KEYS[1], 'state', 'channel', 'requestedBy')
local state = h0[1]
local channel = h0[2] or ''
if not state or string.sub(KEYS[2], -(#channel + 1)) ~= ':' .. channel then return { 'missing', '' } end

local function audit(entered, who, text)
  local h = redis.call('HMGET', KEYS[1], 'id', 'action', 'label', 'clientId', 'hash', 'requestedBy', 'jobKey',
    'clientLabel')
  redis.call('XADD', KEYS[2], 'MINID', '~', minId, '*',
    'approval', h[1], 'state', entered, 'actor', who, 'action', h[2], 'label', h[3], 'client', h[4],
    'hash', h[5], 'requestedBy', h[6], 'job', h[7] or '', 'note', text, 'at', ARGV[2], 'clientLabel', h[8] or '')
end
-- The index entry of an identical request: released once this one can no longer run or has run.
local function release(entered)
  if entered == 'approved' or entered == 'running' then return end
  local h = redis.call('HMGET', KEYS[1], 'id', 'hash')
  local field = 'pending:' .. (h[2] or '')
  if redis.call('HGET', KEYS[3], field) == h[1] then redis.call('HDEL', KEYS[3], field) end
  if entered == 'done' then
    redis.call('HSET', KEYS[3], 'done:' .. (h[2] or ''), h[1])
    if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
  end
end
local function answer(kind, before)
  local out = { kind, before }
  for _, v in ipairs(redis.call('HGETALL', KEYS[1])) do out[#out + 1] = v end
  return out
end

-- Expiry is judged by Redis's clock, not the caller's: a web process whose clock runs behind must not be able
-- to approve a request that has already expired.
local clock = redis.call('TIME')
local redisNow = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
if state == 'pending' and to ~= 'expired' and redisNow >= tonumber(redis.call('HGET', KEYS[1], 'expiresAt')) then
  redis.call('HSET', KEYS[1], 'state', 'expired', 'decidedAt', ARGV[2])
  audit('expired', 'expiry', '')
  release('expired')
  return answer('refused', 'pending')
end
if state == 'running' and to == 'running' then
  if redis.call('HGET', KEYS[1], 'jobKey') == jobKey and redis.call('HGET', KEYS[1], 'hash') == hash then
    return answer('ok', state)
  end
  return answer('refused', state)
end
if not (NEXT[state] and NEXT[state][to]) then return answer('refused', state) end
if forbidSelf == '1' and actor == h0[3] then return answer('self', state) end

-- A step of a sign-off (approve or reject a pending request as the agency, as the client, or waive the client's
-- step): recorded once each; the request is approved when its frozen policy has every step it needs.
local step, team = ARGV[11] or '', ARGV[12] or ''
if state == 'pending' and step ~= '' then
  local s = redis.call('HMGET', KEYS[1], 'signoff', 'clientApprovers', 'agencyBy', 'clientBy', 'waivedBy')
  local policy = s[1] or 'agency'
  local agencyDone = s[3] and s[3] ~= ''
  local clientDone = (s[4] and s[4] ~= '') or (s[5] and s[5] ~= '')
  if step == 'client' then
    local named = false
    if policy ~= 'agency' then
      for _, a in ipairs(cjson.decode(s[2] or '[]')) do
        if a.userId == actor and a.teamId == team then named = true end
      end
    end
    if not named then return answer('refused', state) end
  elseif step == 'waive' then
    if policy == 'agency' or to ~= 'approved' then return answer('refused', state) end
  elseif policy == 'client' and to == 'approved' then
    return answer('refused', state)
  end
  if (step == 'agency' and agencyDone) or (step ~= 'agency' and clientDone) then return answer('stepped', state) end
  local field = step == 'waive' and 'waived' or step
  redis.call('HSET', KEYS[1], field .. 'By', actor, field .. 'At', ARGV[2])
  if step == 'waive' then
    redis.call('HSET', KEYS[1], 'waiveReason', note)
    audit('waived', actor, note)
    note = 'waive'
  end
  if to == 'approved' then
    local agency = step == 'agency' or agencyDone
    local client = step ~= 'agency' or clientDone
    if not ((policy == 'agency' and agency) or (policy == 'client' and client) or (agency and client)) then
      redis.call('PEXPIRE', KEYS[1], ttl)
      if step ~= 'waive' then audit('signed', actor, step) end
      return answer('partial', state)
    end
  end
end

if to == 'running' then
  if redis.call('HGET', KEYS[1], 'jobKey') ~= jobKey or redis.call('HGET', KEYS[1], 'hash') ~= hash then
    return answer('refused', state)
  end
  redis.call('HSET', KEYS[1], 'state', 'running', 'startedAt', ARGV[2])
elseif to == 'cancelled' and state == 'approved' then
  -- The approver's decision stays on the record; who cancelled the waiting run is kept beside it.
  if redis.call('HGET', KEYS[1], 'jobKey') ~= jobKey then return answer('refused', state) end
  redis.call('HSET', KEYS[1], 'state', 'cancelled', 'cancelledBy', actor, 'cancelledAt', ARGV[2])
elseif to == 'done' or to == 'failed' then
  if redis.call('HGET', KEYS[1], 'jobKey') ~= jobKey then return answer('refused', state) end
  redis.call('HSET', KEYS[1], 'state', to, 'finishedAt', ARGV[2], 'outcome', note, 'recordId', recordId)
elseif to == 'approved' then
  -- The run's job key is the approval's, numbered by run, so a Retry is a new job and a repeat is not.
  local runs = redis.call('HINCRBY', KEYS[1], 'runs', 1)
  redis.call('HSET', KEYS[1], 'state', 'approved', 'decidedBy', actor, 'decidedAt', ARGV[2],
    'jobKey', jobKey .. '-' .. runs, 'outcome', '', 'recordId', '', 'finishedAt', '')
else
  redis.call('HSET', KEYS[1], 'state', to, 'decidedBy', actor, 'decidedAt', ARGV[2])
end
redis.call('PEXPIRE', KEYS[1], ttl)
audit(to, actor, note)
release(to)
return answer('ok', state)
`,
);

/**
 * A new approval: its hash, its first audit entry and its claim on the channel's index entry
 * `pending:<payload hash>`, all at once. An identical request holding the entry is answered instead, so of any
 * number of concurrent identical requests exactly one is created.
 *
 * KEYS: the approval's hash, the channel's audit stream, the channel's index.
 * ARGV: id, payload hash, record ttl (ms), audit min id, n, the record's n field/value strings, then the audit
 * entry's field/value strings.
 * Answer: { 'ok' } or { 'held', the id of the approval holding the entry }.
 */
export const approvalCreate = defineScript(
  'gwApprovalCreate',
  3,
  `
local ttl = tonumber(ARGV[3])
local field = 'pending:' .. ARGV[2]
local held = redis.call('HGET', KEYS[3], field)
if held then return { 'held', held } end
redis.call('HSET', KEYS[3], field, ARGV[1])
if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
local n = tonumber(ARGV[5])
local record = {}
for i = 6, 5 + n do record[#record + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(record))
redis.call('PEXPIRE', KEYS[1], ttl)
local entry = { 'XADD', KEYS[2], 'MINID', '~', ARGV[4], '*' }
for i = 6 + n, #ARGV do entry[#entry + 1] = ARGV[i] end
redis.call(unpack(entry))
return { 'ok' }
`,
);
