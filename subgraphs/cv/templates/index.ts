/**
 * Templates: the platform's designs and companies' own, who may use which on their plan, and their
 * graph type. What the other folders of the cv subgraph may use.
 */
export { Template } from './template.entity';
export { TemplateRepository } from './template.repository';
export { TemplateService } from './template.service';
export { TemplateResolver } from './template.resolver';
