/**
 * Where cv processes keep an account's plan for a minute: billing drops it when the account's
 * owner changes the plan, so the new limits hold on the next request.
 */
export function accountPlanCacheKey(redisPrefix: string, accountId: number): string {
  return `${redisPrefix}cv:account-plan:${accountId}`;
}
