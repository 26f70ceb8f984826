/**
 * The fan-out baseline of `bun run bench kds`: a bare Bun WebSocket server (no auth, no routing, no
 * framework) that relays every message of one Redis pub/sub channel to every connected socket with
 * Bun's native topic publish. Started as its own process, like the API. Args: port, redis url, channel.
 */
import { createRedis } from '@pos/kernel';

const [port, redisUrl, channel] = process.argv.slice(2) as [string, string, string];
const server = Bun.serve({
  port: Number(port),
  hostname: '127.0.0.1',
  fetch(req, srv) {
    if (srv.upgrade(req)) return undefined;
    return new Response('ok');
  },
  websocket: {
    open(ws) {
      ws.subscribe('all');
      ws.send('{"type":"ready"}');
    },
    message() {},
  },
});
const sub = createRedis(redisUrl, 'bench-bare-ws');
sub.on('message', (_c, message) => server.publish('all', message));
await sub.subscribe(channel);
console.log('ready');
