import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ResourcesOverlay } from '../../../components/ResourcesOverlay.js';
import type { ResourceIntents } from '../../../src/app/intents.js';
import { initialResourcesView, type ResourcesViewState } from '../../../src/app/resources-view-state.js';
import { sampleStatuses } from '../app/resource-fixtures.js';
import { darkTheme, KEYS, plain, press, settle } from './ink-test.js';

afterEach(() => cleanup());

function recorder(): { intents: ResourceIntents; said: string[] } {
  const said: string[] = [];
  const intents: ResourceIntents = {
    moveResourceSelection: (s) => said.push(`move ${s}`),
    grantSelected: () => said.push('grant'),
    askReleaseSelected: () => said.push('ask release'),
    answerRelease: (y) => said.push(`release ${y}`),
    askController: () => said.push('ask controller'),
    chooseController: (c) => said.push(`controller ${String(c)}`),
    closeOverlay: () => said.push('close'),
  };
  return { intents, said };
}

const view = (patch: Partial<ResourcesViewState> = {}): ResourcesViewState => ({ ...initialResourcesView(), statuses: sampleStatuses(), ...patch });

function mount(v: ResourcesViewState) {
  const r = recorder();
  const ink = render(<ResourcesOverlay view={v} rows={['alice', 'bob', 'carol']} theme={darkTheme()} width={150} height={14} intents={r.intents} />);
  return { ...ink, ...r };
}

describe('ResourcesOverlay', () => {
  it('lists each resource with its policy, holders (process, or why uncertain) and queue in order', () => {
    const o = mount(view());
    const frame = plain(o.lastFrame());
    expect(frame).toContain('db  capacity 1 · controller none (the hub grants in order) · epoch 1');
    expect(frame).toContain('⚿ #1 @alice held since');
    expect(frame).toContain('“migrations” · pid 4242 `npm test`');
    expect(frame).toContain('⧗ 1. #2 @bob waiting since');
    expect(frame).toContain('⚿? #3 @carol uncertain');
    expect(frame).toContain('row carol exited holding a grant with no process recorded');
  });

  it('keys: select, grant, release, controller, close', async () => {
    const o = mount(view());
    await settle();
    await press(o.stdin, KEYS.down, 'k', 'g', 'x', 'c', KEYS.escape);
    expect(o.said).toEqual(['move 1', 'move -1', 'grant', 'ask release', 'ask controller', 'close']);
  });

  it('shows the evidence before a forced release, and y confirms it', async () => {
    const holder = sampleStatuses()[0]!.holders[0]!;
    const o = mount(view({ confirmRelease: holder }));
    const frame = plain(o.lastFrame());
    expect(frame).toContain('Release ticket #1 of @alice?');
    expect(frame).toContain('process: pid 4242, process group 4242, kernel start time 99');
    expect(frame).toContain('command: npm test');
    await settle();
    await press(o.stdin, 'y');
    expect(o.said).toEqual(['release true']);
  });

  it('picks the controller: a row by its digit, o the operator, n none', async () => {
    const o = mount(view({ pickController: 'db' }));
    expect(plain(o.lastFrame())).toContain('2  @bob grants db by hand');
    await settle();
    await press(o.stdin, '2');
    const p = mount(view({ pickController: 'db' }));
    await settle();
    await press(p.stdin, 'o');
    const q = mount(view({ pickController: 'db' }));
    await settle();
    await press(q.stdin, 'n');
    expect([...o.said, ...p.said, ...q.said]).toEqual(['controller bob', 'controller operator', 'controller null']);
  });

  it('sanitizes what peers gave: reasons, commands, whys', () => {
    const statuses = sampleStatuses();
    statuses[0]!.holders[0]!.reason = 'evil\x1b]0;title\x07\x1b[2J';
    const o = mount(view({ statuses }));
    expect(o.lastFrame()).not.toContain('\x1b]0;');
    expect(o.lastFrame()).not.toContain('\x1b[2J');
  });
});
