import { startTelemetry } from '../../../common/telemetry';

// Before any other import: an instrumentation only sees the modules required after it (CommonJS
// runs each require where it is written, so the platform's modules load below, instrumented).
const telemetry = startTelemetry('tickets-events');

import 'reflect-metadata';
import { loadConfig } from '../../../common/config';
import { runMain } from '../../../common/process';
import { startEvents } from './events';

runMain('tickets-events', () => startEvents(loadConfig()), telemetry);
