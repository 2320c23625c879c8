/**
 * A person completing a device sign-in, as a process of its own: opens the verification URL in
 * Chromium, types the code the command line showed, confirms it, says who they are, and waits for the
 * provider to say the device is signed in. Prints `signed in` and exits 0, or the page it got stuck on.
 *
 *   tsx test/support/devicePerson.ts <verification-url> <user-code> <email> <name> <client-address>
 */
import { launchChromium } from './chromium.js';

const [url, code, email, name, address] = process.argv.slice(2);
if (!url || !code || !email || !name || !address) throw new Error('usage: devicePerson <url> <code> <email> <name> <client-address>');

const browser = await launchChromium();
try {
  const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': address } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  try {
    await page.goto(url);
    await page.getByLabel('Code shown on your device').fill(code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Confirm the device' }).waitFor();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Name').fill(name);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Device signed in' }).waitFor();
    console.log('signed in');
  } catch (err) {
    console.log(`stuck at ${page.url()}:\n${await page.locator('body').innerText().catch(() => '(unreadable)')}`);
    throw err;
  }
} finally {
  await browser.close();
}
