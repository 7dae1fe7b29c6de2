import {
  createPrompt,
  isDownKey,
  isEnterKey,
  isSpaceKey,
  isUpKey,
  makeTheme,
  useKeypress,
  usePagination,
  usePrefix,
  useState,
  type Status,
} from '@inquirer/core';

/**
 * A checkbox whose heading counts the ticked items as they are ticked (inquirer's takes a fixed
 * message), built on @inquirer/core with the keys of inquirer's checkbox. Every row is shown at
 * once, so the heading's range is what is on screen.
 */

export interface CountedChoice<T> {
  name: string;
  value: T;
  short?: string;
  checked?: boolean;
}

export interface CountedCheckboxConfig<T> {
  /** The heading, from the number of items ticked now. */
  message: (ticked: number) => string;
  choices: ReadonlyArray<CountedChoice<T>>;
}

const CURSOR_HIDE = '\x1b[?25l';

interface Item<T> extends CountedChoice<T> {
  checked: boolean;
}

export const countedCheckbox = createPrompt(<T>(config: CountedCheckboxConfig<T>, done: (value: T[]) => void): string => {
  const theme = makeTheme({});
  const [status, setStatus] = useState<Status>('idle');
  const prefix = usePrefix({ status, theme });
  const [items, setItems] = useState<Array<Item<T>>>(config.choices.map((c) => ({ ...c, checked: Boolean(c.checked) })));
  const [active, setActive] = useState(0);

  useKeypress((key) => {
    if (isEnterKey(key)) {
      setStatus('done');
      done(items.filter((i) => i.checked).map((i) => i.value));
    } else if (isUpKey(key) || isDownKey(key)) {
      setActive((active + (isUpKey(key) ? -1 : 1) + items.length) % items.length);
    } else if (isSpaceKey(key)) {
      setItems(items.map((item, i) => (i === active ? { ...item, checked: !item.checked } : item)));
    } else if (key.name === 'a') {
      const all = items.some((i) => !i.checked);
      setItems(items.map((item) => ({ ...item, checked: all })));
    } else if (key.name === 'i') {
      setItems(items.map((item) => ({ ...item, checked: !item.checked })));
    }
  });

  const ticked = items.filter((i) => i.checked);
  const message = theme.style.message(config.message(ticked.length), status);
  if (status === 'done') {
    return [prefix, message, theme.style.answer(ticked.map((i) => i.short ?? i.name).join(', '))].filter(Boolean).join(' ');
  }
  const page = usePagination({
    items,
    active,
    renderItem: ({ item, isActive }) => {
      const line = `${isActive ? '❯' : ' '}${item.checked ? '◉' : '◯'} ${item.name}`;
      return isActive ? theme.style.highlight(line) : line;
    },
    pageSize: items.length,
    loop: true,
  });
  const help = theme.style.help('↑↓ move · space ticks · a all · i invert · enter goes on');
  return `${[prefix, message].filter(Boolean).join(' ')}\n${page}\n${help}${CURSOR_HIDE}`;
});
