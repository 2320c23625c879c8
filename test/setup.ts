// Runs in every test process before any test file: the Temporal runtime must be installed
// before the first connection or worker, and quiet unless something is wrong.
import { createLogger } from '../src/logger.js';
import { installTemporalRuntime } from '../src/temporal/runtime.js';

installTemporalRuntime(createLogger({ logLevel: 'error' }), { level: 'ERROR' });
