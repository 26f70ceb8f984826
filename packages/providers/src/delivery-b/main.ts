import { runOAuthSimulator } from '../oauth/main.ts';

// delivery-b's OAuth token endpoint (dev and e2e); see oauth/main.ts for its variables.
runOAuthSimulator('delivery-b');
