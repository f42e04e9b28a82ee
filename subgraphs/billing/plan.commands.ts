import type { CommandSpec } from '../../common/cli';
import { Product } from './plan.entity';
import { PlanService } from './plan.service';
import { toPlanType } from './plan.type';

export const planCommands: CommandSpec[] = [
  {
    noun: 'plans',
    verb: 'list',
    summary: 'The plan catalogue in selling order, optionally for one product.',
    flags: {
      product: { description: 'Only this product’s plans.', type: 'string', choices: Object.values(Product) },
    },
    async run(flags, context) {
      const plans = await new PlanService(await context.em('billing')).list(
        flags.product as Product | undefined,
      );
      return plans.map(toPlanType);
    },
  },
];
