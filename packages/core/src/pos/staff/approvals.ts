import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import { errors } from '@pos/kernel';
import { staffMayAct, type RegisterPermission } from '@pos/domain/permissions';
import { randomSecret } from '../../security/passwords.ts';

/** Spec 2 section 5 rule 4: one permission, 120 seconds, bound to the device, usable once. */
export const APPROVAL_TTL_SECONDS = 120;

interface ApprovalRecord {
  permission: RegisterPermission;
  device_id: string;
  approver_staff_id: string;
}

const key = (token: string) => `pos-approval:${createHash('sha256').update(token).digest('hex')}`;

export async function issueApproval(redis: Redis, rec: ApprovalRecord): Promise<string> {
  const token = randomSecret(24);
  await redis.set(key(token), JSON.stringify(rec), 'EX', APPROVAL_TTL_SECONDS);
  return token;
}

/** Consumes the token when it approves `permission` on `deviceId`; a token for another permission is left untouched. */
export async function consumeApproval(redis: Redis, token: string, permission: RegisterPermission, deviceId: string): Promise<string | null> {
  return (await takeApproval(redis, token, permission, deviceId))?.approver ?? null;
}

/** `consumeApproval`, answering also what `giveBackApproval` needs to put the token back. */
async function takeApproval(redis: Redis, token: string, permission: RegisterPermission, deviceId: string): Promise<{ approver: string; raw: string; ttlMs: number } | null> {
  const raw = await redis.get(key(token));
  if (!raw) return null;
  const rec = JSON.parse(raw) as ApprovalRecord;
  if (rec.permission !== permission || rec.device_id !== deviceId) return null;
  // GETDEL makes the single use atomic: of two concurrent requests only one gets the record.
  const [[, ttlMs], [, taken]] = (await redis.multi().pttl(key(token)).getdel(key(token)).exec()) as [[Error | null, number], [Error | null, string | null]];
  return taken ? { approver: rec.approver_staff_id, raw: taken, ttlMs } : null;
}

/**
 * Enforces register permissions (CONTRACTS 2): held directly, held through `approve_as_manager`, or
 * approved by an `approval_token` for exactly that permission. Otherwise 403.
 */
export class StaffAuthorizer {
  private approvalUsed = false;
  /** The approval this request took, to put back when its action is refused after all. */
  private taken: { raw: string; ttlMs: number } | null = null;
  constructor(
    private readonly redis: Redis,
    private readonly held: readonly string[],
    private readonly deviceId: string,
    private readonly approvalToken: string | undefined,
  ) {}

  /** Resolves with the approver's staff id when an approval was consumed, else null. */
  async require(permission: RegisterPermission): Promise<string | null> {
    if (staffMayAct(this.held, permission)) return null;
    if (this.approvalToken && !this.approvalUsed) {
      const approval = await takeApproval(this.redis, this.approvalToken, permission, this.deviceId);
      if (approval) {
        this.approvalUsed = true;
        this.taken = { raw: approval.raw, ttlMs: approval.ttlMs };
        return approval.approver;
      }
    }
    throw errors.insufficientPermissions();
  }

  async requireAll(perms: readonly RegisterPermission[]): Promise<void> {
    for (const p of perms) await this.require(p);
  }

  /**
   * Puts the approval back, for what it had left of its 120 s, when the action it approved was refused
   * after all (nothing happened): "usable once" is once for an action that takes place, and the cashier
   * would otherwise have to call the manager again for a token spent on a refusal.
   */
  async giveBack(): Promise<void> {
    if (!this.taken || !this.approvalToken || this.taken.ttlMs <= 0) return;
    const { raw, ttlMs } = this.taken;
    this.taken = null;
    this.approvalUsed = false;
    await this.redis.set(key(this.approvalToken), raw, 'PX', ttlMs, 'NX').catch(() => undefined);
  }
}
