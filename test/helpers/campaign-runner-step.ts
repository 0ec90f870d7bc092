// A campaign runner step the test can wait for. The runner (src/services/campaign-runner.ts) polls
// the store on real time; each step first reports the campaigns' changes (CAMPAIGN_* notices on the
// received webhook), then steps every running campaign. A test that asserts a campaign did NOT do
// something after the clock moved (paused: nothing queued) needs a whole step that began after the
// move: this cancels a draft campaign of a side account twice and waits for each notice. The second
// notice is reported by a later step than the first, which has therefore finished stepping every
// campaign, at a time on the clock after the call.
import type { Harness } from './engine-harness.js';

interface Side {
  token: string;
  instanceId: string;
}

const sides = new WeakMap<Harness, Side>();

async function sideOf(h: Harness): Promise<Side> {
  const known = sides.get(h);
  if (known) return known;
  const { clientToken: token } = await h.gateway.accounts.create('runner-steps');
  const as = { 'client-token': token };
  const created = await h.call('POST', '/instances', { name: 'runner-steps' }, as);
  if (created.status !== 201) throw new Error(`side instance: ${created.status} ${created.body.toString()}`);
  const instanceId = String(created.json.instanceId);
  const prefix = `/instances/${instanceId}/token/${String(created.json.instanceToken)}`;
  const hook = await h.call('PUT', `${prefix}/update-webhook-received`, { value: `${h.webhooks.url}/runner-steps` }, as);
  if (hook.status !== 200) throw new Error(`side webhook: ${hook.status} ${hook.body.toString()}`);
  const side = { token, instanceId };
  sides.set(h, side);
  return side;
}

/** Resolves once a whole campaign runner step has run after this call (a side account's notices, not the test's). */
export async function campaignRunnerStepped(h: Harness): Promise<void> {
  const side = await sideOf(h);
  const as = { 'client-token': side.token };
  for (let i = 0; i < 2; i++) {
    const created = await h.call('POST', '/campaigns', { name: 'runner step', message: 'never sent', instanceIds: [side.instanceId], recipients: [{ phone: '5511900000000' }] }, as);
    if (created.status !== 200) throw new Error(`side campaign: ${created.status} ${created.body.toString()}`);
    const id = String(created.json.id);
    const cancelled = await h.call('POST', `/campaigns/${id}/cancel`, undefined, as);
    if (cancelled.status !== 200) throw new Error(`side cancel: ${cancelled.status} ${cancelled.body.toString()}`);
    await h.webhooks.waitFor((x) => x.body.notification === 'CAMPAIGN_CANCELLED' && (x.body.notificationParameters as string[])[0] === id, 15_000, 'a campaign runner step');
  }
}
