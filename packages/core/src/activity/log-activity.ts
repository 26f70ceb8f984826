import type { TenantDb, TenantTx } from '@pos/db';

export interface ActivityEntry {
  userId: string | null;
  /** verb in past tense: `created`, `updated`, `deleted`, `activated`... */
  action: string;
  /** model name: `device`, `role`, `user`... */
  subject: string;
  subjectId?: string | null;
  properties?: Record<string, unknown>;
}

/** Appends one back-office write to the merchant's activity log, inside the caller's transaction. */
export async function logActivity(db: TenantDb | TenantTx, e: ActivityEntry): Promise<void> {
  await db
    .insertInto('activity_logs')
    .values({
      id: Bun.randomUUIDv7(),
      user_id: e.userId,
      action: e.action,
      subject: e.subject,
      subject_id: e.subjectId ?? null,
      properties: JSON.stringify(e.properties ?? {}),
    })
    .execute();
}
