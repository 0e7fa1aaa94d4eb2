/**
 * A project's links in the panel, in headless Chromium against fakes of the apps and pages services: link an app
 * and a pages alias (the peer is asked, with the signed-in person's access token, whether they may), see them with
 * their state, have an app the person may not change refused with the peer's answer beside the form, and unlink.
 * axe-core on the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { makeTeam, makeUser } from '../api/access-fixtures.ts';
import { createTeamProject, type Project } from '../errors/support/errors-fixtures.ts';
import { startWithPeers } from '../links/support/link-fixtures.ts';
import type { FakePeers } from '../links/support/fake-peer.ts';
import type { TestServer } from '../support/test-server.ts';
import { ensurePanelBuilt, expectAccessible, haveChromium, launchChromium, screenshot, signIn } from './panel-browser.ts';

describe.skipIf(!haveChromium)('project links in the panel', () => {
  let s: TestServer;
  let peers: FakePeers;
  let p: Project;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await ensurePanelBuilt();
    ({ s, peers } = await startWithPeers());
    const team = await makeTeam(s, 'shop');
    const grace = await makeUser(s, 'grace', { [team]: 'admin' });
    p = await createTeamProject(s, 'shop', { name: 'storefront' });
    peers.apps.add('shop-web').callers.add(grace.id);
    peers.apps.add('billing');
    const docs = peers.pages.add('docs');
    docs.callers.add(grace.id);
    docs.deploys.unshift({ id: 'dep7', alias: 'docs', created_at: new Date().toISOString(), status: 'ready' });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    await signIn(page, s.url, `/errors/projects/${p.id}`, 'grace', 'correct horse battery staple');
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await peers?.close();
  });

  it('links an app and a pages alias, refuses an app the peer does not let you change, and unlinks', async () => {
    const section = page.getByRole('region', { name: 'Linked apps and pages' });
    await section.getByRole('heading', { name: 'Nothing linked' }).waitFor();

    await section.getByLabel('App id').fill('shop-web');
    await section.getByRole('button', { name: 'Link', exact: true }).click();
    await section.getByRole('cell', { name: 'shop-web' }).waitFor();
    expect(peers.apps.targets.get('shop-web')!.linked).toMatchObject({ dsn: p.dsn });

    await section.getByLabel('Kind').selectOption('alias');
    await section.getByLabel('Alias name').fill('docs');
    await section.getByLabel('Environment').fill('staging');
    await section.getByRole('button', { name: 'Link', exact: true }).click();
    await section.getByRole('cell', { name: /docs \(staging\)/ }).waitFor();
    await section.getByText('reports release docs@dep7').waitFor();

    await section.getByLabel('Kind').selectOption('app');
    await section.getByLabel('App id').fill('billing');
    await section.getByRole('button', { name: 'Link', exact: true }).click();
    await section.getByText(/billing/).filter({ hasText: /refus|not allowed|may not/i }).first().waitFor();
    expect(peers.apps.targets.get('billing')!.linked).toBeNull();

    await expectAccessible(page, 'project links');
    await screenshot(page, 'project-links');

    page.once('dialog', (d) => void d.accept());
    await section.getByRole('row', { name: /shop-web/ }).getByRole('button', { name: 'Unlink' }).click();
    await section.getByRole('cell', { name: 'shop-web' }).waitFor({ state: 'detached' });
    expect(peers.apps.targets.get('shop-web')!.linked).toBeNull();
  });
});
