import { runOAuthSimulator } from '../oauth/main.ts';

// shop-a's OAuth token endpoint (dev and e2e); see oauth/main.ts for its variables.
runOAuthSimulator('shop-a');
