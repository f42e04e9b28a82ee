import 'reflect-metadata';
import { loadConfig } from '../../../common/config';
import { runMain } from '../../../common/process';
import { startEvents } from './events';

runMain('tickets-events', () => startEvents(loadConfig()));
