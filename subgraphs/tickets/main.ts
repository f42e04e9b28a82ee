import 'reflect-metadata';
import { loadConfig } from '../../common/config';
import { runMain } from '../../common/process';
import { startSubgraph } from '../../common/subgraph';
import { ticketsSubgraph } from './tickets.subgraph';

runMain('tickets-subgraph', () => startSubgraph(ticketsSubgraph, loadConfig()));
