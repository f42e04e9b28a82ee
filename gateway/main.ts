import { loadConfig } from '../common/config';
import { runMain } from '../common/process';
import { startGateway } from './gateway';

runMain('gateway', () => startGateway(loadConfig()));
