// The account routes (instance data, profile, reactions, privacy, contact pictures, blocking) as
// one instance-scoped plugin, listed in routes/index.ts beside the other instance routes.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AccountService } from '../../services/account-service.js';
import type { PrivacyService } from '../../services/privacy-service.js';
import { accountRoutes } from './account.js';
import { contactProfileRoutes } from './contact-profile.js';
import { privacyRoutes } from './privacy.js';

export function accountRouteTree(account: AccountService, privacy: PrivacyService, mediaBodyLimit: number) {
  return async (base: FastifyInstance): Promise<void> => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    await app.register(accountRoutes(account, mediaBodyLimit));
    await app.register(privacyRoutes(privacy));
    await app.register(contactProfileRoutes(account));
  };
}
