// Takes the README's screenshots from the release build in dist/: the monotonic lesson played
// to its end (static/screenshot.png), the Compare tab's default run (static/compare.png) and
// the embed view of the hashed lesson (static/embed.png). Run after `trunk build --release`:
//   node scripts/readme-shots.mjs
import { serve, launch, playLesson, playComparison } from '../tests/e2e/harness.mjs';

const server = await serve();
const browser = await launch();
try {
  const { page } = await playLesson(browser, server.url, 'monotonic', { viewport: { width: 1440, height: 1000 } });
  await page.screenshot({ path: 'static/screenshot.png', fullPage: true });
  await page.close();

  const compare = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await compare.goto(server.url);
  await compare.getByTestId('tab-compare').click();
  await playComparison(compare);
  await compare.getByTestId('compare').screenshot({ path: 'static/compare.png' });
  await compare.close();

  const embed = await browser.newPage({ viewport: { width: 480, height: 720 } });
  await embed.goto(`${server.url}?embed=1&preset=hashed&autoplay=1`);
  await embed.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="progress"]');
    return bar && bar.getAttribute('aria-valuenow') === bar.getAttribute('aria-valuemax');
  }, null, { timeout: 60_000 });
  await embed.screenshot({ path: 'static/embed.png' });
  await embed.close();
  console.log('wrote static/screenshot.png, static/compare.png, static/embed.png');
} finally {
  await browser.close();
  server.close();
}
