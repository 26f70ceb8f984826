/**
 * Where `bun run dev`'s simulators send their webhooks: the API's matching route (spec 3 "Inbound
 * webhook and callback routes"), with the secret both sides read from the one environment, so that
 * kiosk and online payments complete by webhook as they do in production (polling stays the fallback).
 *
 * `simulated` names the base-URL variables of the providers dev simulates: a provider reached at a real
 * address keeps its own webhook settings. Answers only the variables to add (a variable already set
 * wins); `secret(n)` makes a random secret of n characters.
 */
export function devWebhookEnv(env: Readonly<Record<string, string | undefined>>, simulated: ReadonlySet<string>, secret: (length: number) => string): Record<string, string> {
  const api = `http://127.0.0.1:${env.API_PORT || 3000}/api`;
  const out: Record<string, string> = {};
  const set = (key: string, value: string) => {
    if (!env[key] && out[key] === undefined) out[key] = value;
  };
  // The marketplaces' signed order webhooks (their secrets come with their simulators' credentials).
  set('DELIVERY_A_SIM_WEBHOOK_URL', `${api}/webhook/delivery-a/orders`);
  set('DELIVERY_B_SIM_WEBHOOK_URL', `${api}/webhook/delivery-b`);
  if (simulated.has('CARD_A_BASE_URL')) {
    // card-a's endpoint is per country: the demo seed's locations are Belgian.
    set('CARD_A_SIM_WEBHOOK_URL', `${api}/card-a-webhook/BE`);
    set('CARD_A_WEBHOOK_SECRET', `whsec_${secret(32)}`);
  }
  if (simulated.has('CARD_B_BASE_URL')) {
    // The simulator checks the key the API answers to its handshake; the API takes card-b's POSTs
    // only from allowed addresses, here the simulator's.
    set('CARD_B_SIM_WEBHOOK_URL', `${api}/card-b-webhook/BE/1796`);
    set('CARD_B_WEBHOOK_KEY', secret(32));
    set('CARD_B_WEBHOOK_IPS', '127.0.0.1');
  }
  if (simulated.has('PLATFORM_A_BASE_URL')) {
    // The signed text starts with the notification URL: the API checks against the one the simulator posts to.
    const url = env.PLATFORM_A_SIM_WEBHOOK_URL || env.PLATFORM_A_WEBHOOK_URL || `${api}/webhook/platform-a`;
    set('PLATFORM_A_SIM_WEBHOOK_URL', url);
    set('PLATFORM_A_WEBHOOK_URL', url);
    set('PLATFORM_A_WEBHOOK_SIGNATURE_KEY', secret(32));
  }
  // register-a signs with each connection's applicationId, which the API already holds.
  if (simulated.has('REGISTER_A_BASE_URL')) set('REGISTER_A_SIM_WEBHOOK_URL', `${api}/webhook/register-a`);
  return out;
}
