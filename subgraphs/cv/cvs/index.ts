/**
 * CVs: a CV's document and its section rows, its photo, the plan's CV limit, JSON Resume import
 * and export through the json-resume folder, and the graph's CV operations and types.
 * What the other folders of the cv subgraph may use.
 */
export { CvRepository, type CvRow } from './cv.repository';
export { CvService } from './cv.service';
export { CvResolver } from './cv.resolver';
