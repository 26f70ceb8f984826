import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import type { OAuthProvider } from './oauth-client.ts';
import { startOAuthSimulator } from './oauth-simulator.ts';

/**
 * A standalone token endpoint of one integration provider for dev and e2e: port `<P>_OAUTH_SIM_PORT`,
 * client `<P>_CLIENT_ID` / `<P>_CLIENT_SECRET` (P = SHOP_A, PLATFORM_A, DELIVERY_B, REGISTER_C).
 * Started by each provider's entry (`shop-a/main.ts`, `platform-a/oauth-main.ts`, `delivery-b/main.ts`,
 * `register-c/main.ts`).
 */
export function runOAuthSimulator(provider: OAuthProvider): void {
  const p = provider.toUpperCase().replace('-', '_');
  const sim = startOAuthSimulator({ provider, port: portFrom(`${p}_OAUTH_SIM_PORT`), clientId: requireEnv(`${p}_CLIENT_ID`), clientSecret: requireEnv(`${p}_CLIENT_SECRET`) });
  console.log(`${provider} OAuth simulator listening on ${sim.url}`);
  stopOnSignal(() => sim.stop());
}
