import { runOAuthSimulator } from '../oauth/main.ts';

// register-c's OAuth token endpoint (dev and e2e); see oauth/main.ts for its variables.
runOAuthSimulator('register-c');
