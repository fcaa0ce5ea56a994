/**
 * The fast tier's RESP fuzzing of the valkey target's server (test/fuzz/redis-fuzz.ts says what
 * each input must do): its cluster-mode redis-server with the functions' user and `default` off,
 * behind the network model's TLS. Generated inputs authenticate as the functions do (the user id
 * and a token); the checks that a key written before survives read it as the lab's admin user.
 */
import { randomBytes } from 'node:crypto';
import { valkeyUserId } from '../../../targets/valkey/access';
import { ADMIN_USER, startValkey } from '../../../targets/valkey/engine';
import { describeRedisFuzz } from '../../fuzz/redis-fuzz';
import { resp } from '../../fuzz/redis-grammar';
import { FAST } from '../../fuzz/support/fuzz-runs';

const user = valkeyUserId('LatencyLab-Data');
const password = randomBytes(18).toString('base64url');

describeRedisFuzz(FAST, {
  name: 'valkey',
  start: () => startValkey({ user, password }),
  auth: () => resp(['AUTH', user, 'a-token']),
  checkAuth: () => resp(['AUTH', ADMIN_USER, password]),
});
