import { describe, expect, it } from 'vitest';
import type { ApprovalRecord } from '../../src/approvals/record.js';
import { type ClickerFacts, signoffOutcome, signoffStep } from '../../src/approvals/signoff-rule.js';

const record = (more: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
  id: 'a1',
  state: 'pending',
  action: 'deploy_blog',
  label: 'Blog deploy',
  clientId: 'acme',
  clientLabel: 'Acme',
  fields: {},
  hash: 'h',
  preview: { kind: 'deploy', postId: 'p1' },
  requestedBy: 'UBOB',
  channel: 'CSHARED',
  createdAt: 0,
  expiresAt: 1,
  runs: 0,
  signoff: 'both',
  clientApprovers: [{ userId: 'UDANA', teamId: 'TACME' }],
  ...more,
});
const dana = { userId: 'UDANA', teamId: 'TACME', channelId: 'CSHARED' };
const client: ClickerFacts = { home: false, teams: ['TACME'], agencyApprover: false, stillNamed: true };
const agency: ClickerFacts = { home: true, teams: ['THOME'], agencyApprover: true, stillNamed: false };

describe('who may decide which step of a sign-off', () => {
  it('gives a named client approver the client step, and the agency approver the agency step', () => {
    expect(signoffStep(record(), dana, client, 'approved')).toEqual({ step: 'client' });
    expect(signoffStep(record(), { ...dana, userId: 'UALICE', teamId: 'THOME' }, agency, 'approved')).toEqual(
      {
        step: 'agency',
      },
    );
  });

  it('refuses the client approver a forged team, another channel, a removed name, `agency`, and their own request', () => {
    expect(signoffStep(record(), { ...dana, teamId: 'TTHIRD' }, client, 'approved')).toEqual({
      refused: 'not-here',
    });
    expect(signoffStep(record(), dana, { ...client, teams: ['TTHIRD'] }, 'approved')).toEqual({
      refused: 'not-here',
    });
    expect(signoffStep(record(), { ...dana, channelId: 'COTHER' }, client, 'approved')).toEqual({
      refused: 'not-here',
    });
    expect(signoffStep(record(), dana, { ...client, stillNamed: false }, 'approved')).toEqual({
      refused: 'not-approver',
    });
    expect(signoffStep(record({ signoff: undefined }), dana, client, 'approved')).toEqual({
      refused: 'not-approver',
    });
    expect(signoffStep(record({ requestedBy: 'UDANA' }), dana, client, 'rejected')).toEqual({
      refused: 'own-request',
    });
  });

  it('refuses anyone else of another workspace, and tells a named approver a decided request ended', () => {
    const frank = { userId: 'UFRANK', teamId: 'TTHIRD', channelId: 'CSHARED' };
    expect(signoffStep(record(), frank, { ...client, teams: ['TTHIRD'] }, 'approved')).toEqual({
      refused: 'not-approver',
    });
    expect(signoffStep(record({ state: 'approved' }), dana, client, 'approved')).toEqual({
      refused: 'decided',
    });
  });

  it('under `client`, lets the agency reject but not approve', () => {
    const alice = { userId: 'UALICE', teamId: 'THOME', channelId: 'CSHARED' };
    expect(signoffStep(record({ signoff: 'client' }), alice, agency, 'approved')).toEqual({
      refused: 'client-decides',
    });
    expect(signoffStep(record({ signoff: 'client' }), alice, agency, 'rejected')).toEqual({ step: 'agency' });
    expect(signoffStep(record(), alice, { ...agency, agencyApprover: false }, 'approved')).toEqual({
      refused: 'not-approver',
    });
  });

  it('names each step’s outcome for the metrics', () => {
    expect(signoffOutcome('approved', 'client')).toBe('client_approved');
    expect(signoffOutcome('rejected', 'agency')).toBe('agency_rejected');
    expect(signoffOutcome('approved', 'waive')).toBe('waived');
  });
});
