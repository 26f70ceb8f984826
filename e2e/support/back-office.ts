import type { APIRequestContext } from '@playwright/test';
import { loadSeed } from './seed.ts';
import { E2E } from './stack-env.ts';

export type BackOfficeCall = (method: 'get' | 'post' | 'put' | 'delete', path: string, data?: unknown) => Promise<{ status: number; body: any }>;

/** The demo merchant's owner signed in: calls under `/api/back-office` with their token. */
export async function backOffice(request: APIRequestContext): Promise<BackOfficeCall> {
  const { token } = await (await request.post('/api/login', { data: loadSeed().backoffice })).json();
  const headers = { authorization: `Bearer ${token}` };
  return async (method, path, data) => {
    const res = await request[method](`/api/back-office${path}`, { headers, ...(data !== undefined ? { data } : {}) });
    return { status: res.status(), body: await res.json() };
  };
}

/** A device of the suite's own (seeded activation codes belong to other suites), activated: its id and request headers. */
export async function newDevice(request: APIRequestContext, api: BackOfficeCall, device: { name: string; type: 'pos' | 'kiosk' | 'kds'; location_id: string }): Promise<{ id: string; headers: Record<string, string> }> {
  const created = (await api('post', '/devices', device)).body.data;
  const { token } = await (await request.post('/api/device-auth/activate', { data: { activation_code: created.activation_code } })).json();
  return { id: created.id, headers: { authorization: `Bearer ${token}`, 'x-client-api-key': E2E.env.DEVICE_API_KEY } };
}
