import { parseArgs } from 'node:util';
import type pg from 'pg';
import { issueApiKey, revokeApiKey } from '../auth/api-key.service.js';
import { createMerchant, getMerchant, listMerchants, patchMerchant } from '../merchants/merchant.service.js';
import type { MerchantPatch } from '../merchants/merchant.schemas.js';
import type { Runtime } from '../runtime.js';
import { ROLES, type Role } from '../auth/permission.rules.js';
import { inviteUser } from '../user/user.service.js';
import { listUnmatchedPayments, refundUnmatchedPayment } from '../unmatched/unmatched.service.js';
import { UNMATCHED_STATUSES } from '../unmatched/unmatched.schemas.js';
import { openDispute, resolveDispute } from '../disputes/dispute.service.js';
import { DISPUTE_OUTCOMES, type DisputeOutcome } from '../disputes/dispute.schemas.js';

export const CLI_USAGE = `Operator commands (the same operations as /admin):
  pixgate merchant create --user-name NAME --email EMAIL [merchant options]
  pixgate merchant update MERCHANT_ID [merchant options] [--suspended true|false]
  pixgate merchant get MERCHANT_ID
  pixgate merchant list [--limit N] [--after CURSOR]
  pixgate apikey create MERCHANT_ID
  pixgate apikey revoke KEY_ID
  pixgate user invite --merchant MERCHANT_ID --email EMAIL --name NAME --role OWNER|DEVELOPER|FINANCE|VIEWER
  pixgate unmatched list [--status OPEN|REFUNDING|REFUNDED] [--limit N] [--after CURSOR]
  pixgate unmatched refund UNMATCHED_PAYMENT_ID
  pixgate dispute open CHARGE_ID
  pixgate dispute resolve DISPUTE_ID --outcome ACCEPTED|REJECTED
Merchant options: --kyc-status PENDING|APPROVED|REJECTED --trade-name --legal-name --full-name --tax-id
  --pix-key KEY --pix-key-type CPF|CNPJ|EMAIL|TELEFONE|CHAVE_ALEATORIA --city
  --min-ticket --max-ticket --max-withdrawal --withdrawals-enabled true|false
  --charge-fee-fixed --charge-fee-bps --withdrawal-fee-fixed`;

const OPTIONS = Object.fromEntries(
  ['user-name', 'email', 'kyc-status', 'trade-name', 'legal-name', 'full-name', 'tax-id', 'pix-key', 'pix-key-type', 'city',
    'min-ticket', 'max-ticket', 'max-withdrawal', 'withdrawals-enabled', 'charge-fee-fixed', 'charge-fee-bps',
    'withdrawal-fee-fixed', 'suspended', 'limit', 'after', 'merchant', 'name', 'role', 'status', 'outcome'].map((o) => [o, { type: 'string' as const }]),
);

function unmatchedStatus(v: string | undefined) {
  if (v === undefined) return undefined;
  const status = UNMATCHED_STATUSES.find((s) => s === v);
  if (!status) throw new Error(`--status must be one of ${UNMATCHED_STATUSES.join(', ')}`);
  return status;
}

function disputeOutcome(v: string | undefined): DisputeOutcome {
  const outcome = DISPUTE_OUTCOMES.find((o) => o === v);
  if (!outcome) throw new Error(`--outcome must be one of ${DISPUTE_OUTCOMES.join(', ')}`);
  return outcome;
}

function integer(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new Error(`--${name} must be a whole number`);
  return Number(v);
}
const bool = (v: string | undefined) => (v === undefined ? undefined : v === 'true');

function merchantInput(o: Record<string, string | undefined>): MerchantPatch {
  const kyc = { status: o['kyc-status'] as never, tradeName: o['trade-name'], legalName: o['legal-name'], fullName: o['full-name'], taxId: o['tax-id'] };
  return {
    userName: o['user-name'], email: o.email, city: o.city, suspended: bool(o.suspended),
    kyc: Object.values(kyc).some((v) => v !== undefined) ? kyc : undefined,
    pixKey: o['pix-key'] ? { key: o['pix-key'], type: (o['pix-key-type'] ?? 'CHAVE_ALEATORIA') as never } : undefined,
    minTicket: integer(o['min-ticket'], 'min-ticket'), maxTicket: integer(o['max-ticket'], 'max-ticket'),
    maxWithdrawal: integer(o['max-withdrawal'], 'max-withdrawal'), withdrawalsEnabled: bool(o['withdrawals-enabled']),
    chargeFeeFixed: integer(o['charge-fee-fixed'], 'charge-fee-fixed'), chargeFeeBps: integer(o['charge-fee-bps'], 'charge-fee-bps'),
    withdrawalFeeFixed: integer(o['withdrawal-fee-fixed'], 'withdrawal-fee-fixed'),
  };
}

/** Runs one operator command and returns what to print (JSON). */
export async function runAdminCommand(rt: Runtime, args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  const [noun, verb, id] = positionals;
  const pool: pg.Pool = rt.pool;
  switch (`${noun} ${verb}`) {
    case 'merchant create': {
      const input = merchantInput(values);
      if (!input.userName || !input.email) throw new Error('--user-name and --email are required');
      return createMerchant(pool, { ...input, userName: input.userName, email: input.email });
    }
    case 'merchant update': return patchMerchant(pool, required(id), merchantInput(values));
    case 'merchant get': return getMerchant(pool, required(id));
    case 'merchant list': return listMerchants(pool, rt.cursors, { limit: integer(values.limit, 'limit'), after: values.after });
    case 'apikey create': return issueApiKey(pool, required(id));
    case 'apikey revoke': return revokeApiKey(pool, required(id));
    case 'unmatched list': return listUnmatchedPayments(pool, rt.cursors, { limit: integer(values.limit, 'limit'), after: values.after, status: unmatchedStatus(values.status) });
    case 'unmatched refund': return refundUnmatchedPayment(rt, required(id));
    case 'dispute open': return openDispute(rt, { chargeId: required(id) });
    case 'dispute resolve': return resolveDispute(rt, required(id), disputeOutcome(values.outcome));
    case 'user invite': {
      // The merchant's first user (docs/contract/access.md#invitations), as POST /admin/merchants/{id}/users: prints the invitation link.
      const { merchant, email, name, role } = values;
      if (!merchant || !email || !name || !role) throw new Error('--merchant, --email, --name and --role are required');
      if (!ROLES.includes(role as Role)) throw new Error(`--role must be one of ${ROLES.join(', ')}`);
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new Error('--email must be an e-mail address');
      return inviteUser(rt, merchant, { email, name, role: role as Role });
    }
    default: throw new Error(CLI_USAGE);
  }
}

function required(id: string | undefined): string {
  if (!id) throw new Error('an id is required\n' + CLI_USAGE);
  return id;
}
