import { loadConfig } from '../common/config';
import { runMain } from '../common/process';
import { startRestAdapter } from './rest-adapter';

runMain('rest-adapter', () => startRestAdapter(loadConfig()));
