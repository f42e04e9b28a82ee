import 'reflect-metadata';
import { loadConfig } from '../../common/config';
import { runMain } from '../../common/process';
import { startSubgraph } from '../../common/subgraph';
import { cvSubgraph } from './cv.subgraph';

runMain('cv-subgraph', () => startSubgraph(cvSubgraph, loadConfig()));
