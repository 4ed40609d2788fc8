/** The delaying proxy in its own process, so its timers never share an event loop with a tunnel under test. */
import { startDelayProxy, type DelayProxyOptions } from '../../test/bed/delayProxy';

startDelayProxy(JSON.parse(process.argv[2]) as DelayProxyOptions).then(
  (p) => process.send?.({ port: p.port }),
  (e: Error) => {
    process.send?.({ error: e.message });
    process.exit(1);
  },
);
process.on('disconnect', () => process.exit(0));
