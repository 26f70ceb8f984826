import { runOAuthSimulator } from '../oauth/main.ts';

// platform-a's OAuth token endpoint (dev and e2e; the payment simulator is main.ts); see oauth/main.ts.
runOAuthSimulator('platform-a');
