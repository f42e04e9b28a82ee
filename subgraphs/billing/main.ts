import 'reflect-metadata';
import { loadConfig } from '../../common/config';
import { runMain } from '../../common/process';
import { startSubgraph } from '../../common/subgraph';
import { billingSubgraph } from './billing.subgraph';

runMain('billing-subgraph', () => startSubgraph(billingSubgraph, loadConfig()));
