import 'reflect-metadata';
import { loadConfig } from '../../common/config';
import { runMain } from '../../common/process';
import { startSubgraph } from '../../common/subgraph';
import { identitySubgraph } from './identity.subgraph';

runMain('identity-subgraph', () => startSubgraph(identitySubgraph, loadConfig()));
