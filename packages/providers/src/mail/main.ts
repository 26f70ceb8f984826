import { portFrom, stopOnSignal } from '../shared/sim-main.ts';
import { startSmtpCatcher } from './smtp-catcher.ts';

// Standalone SMTP catcher for dev and e2e: SMTP_CATCHER_SMTP_PORT, SMTP_CATCHER_HTTP_PORT (0 = any).
const c = await startSmtpCatcher({ smtpPort: portFrom('SMTP_CATCHER_SMTP_PORT'), httpPort: portFrom('SMTP_CATCHER_HTTP_PORT') });
console.log(`smtp catcher ${c.smtpUrl} listening on ${c.httpUrl}`);
stopOnSignal(() => c.stop());
