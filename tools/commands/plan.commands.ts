import type { CommandSpec } from '../../common/cli';
import { Product } from '../../subgraphs/billing/plan.entity';
import { billingServices } from '../../subgraphs/billing/billing.subgraph';
import { toPlanType } from '../../subgraphs/billing/plan.type';

export const planCommands: CommandSpec[] = [
  {
    noun: 'plans',
    verb: 'list',
    summary: 'The plan catalogue in selling order, optionally for one product.',
    flags: {
      product: { description: 'Only this product’s plans.', type: 'string', choices: Object.values(Product) },
    },
    async run(flags, context) {
      const plans = await billingServices(await context.em('billing')).plans.list(
        flags.product as Product | undefined,
      );
      return plans.map(toPlanType);
    },
  },
];
