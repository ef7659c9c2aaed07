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
 * audit min id, record ttl (ms), '1' when the requester may not make this decision. The channel of the audit
 * key must be the approval's own (a card's button names its own channel's approval), else it is 'missing'.
 * Answer: { 'ok' | 'refused' | 'self' | 'missing', the state before, HGETALL after... }.
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
