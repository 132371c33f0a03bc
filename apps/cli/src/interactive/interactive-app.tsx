// The interactive app of `muster run` and `muster demo --run`: it folds the team's events and
// files into the view-model, draws the screen, and turns keys into the runtime's calls. All
// coordination stays in the runtime (@muster/agents); the app only shows and forwards.
import { useApp, useInput, useStdout } from 'ink';
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type { TeamEvent, TeamRuntime } from '@muster/agents';
import type { TerminalStyle } from '../terminal-style.js';
import {
  currentAsk,
  handleKey,
  INITIAL_KEYBOARD,
  type KeyCommand,
  type KeyboardState,
} from './key-handling.js';
import { SessionScreen, conversationPageRows } from './session-screen.js';
import { readRoster, readScreen } from './runtime-roster.js';
import { LEAD_NAME, reduceSession, selectableAgents, type SessionModel } from './session-model.js';
import type { SessionEnding } from './session-ending.js';
import type { StoppingView } from './panel-rows.js';

/** How often the runtime is asked about its teammates and status (no I/O), and a pty screen read. */
const ROSTER_POLL_MS = 500;

/** The part of the runtime the app uses. */
export type AppRuntime = Pick<
  TeamRuntime,
  'subscribe' | 'prompt' | 'interrupt' | 'answer' | 'messageTeammate' | 'members' | 'status'
>;

/** Props of {@link InteractiveApp}. */
export interface InteractiveAppProps {
  runtime: AppRuntime;
  ending: SessionEnding;
  initialModel: SessionModel;
  style: TerminalStyle;
  /** Text already on the prompt line (the demo's prompt, for the person to send or change). */
  initialInput?: string;
  /** Sent to the lead at once (`muster run "<prompt>"`). */
  initialPrompt?: string;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The app: one screen, keys to runtime calls, until the ending closes the runtime. */
export function InteractiveApp(props: InteractiveAppProps) {
  const { runtime, ending, style } = props;
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [size, setSize] = useState({ rows: stdout.rows || 24, columns: stdout.columns || 80 });
  const [model, dispatch] = useReducer(reduceSession, props.initialModel);
  const [keyboard, setKeyboard] = useState<KeyboardState>({
    ...INITIAL_KEYBOARD,
    input: props.initialInput ?? '',
  });
  const [, setTick] = useState(0);
  const modelRef = useRef(model);
  modelRef.current = model;
  // Keys can arrive faster than renders: the handler reads and writes the newest state here.
  const keyboardRef = useRef(keyboard);
  const answeredRef = useRef(new Set<string>());

  useEffect(() => {
    const onResize = () => setSize({ rows: stdout.rows || 24, columns: stdout.columns || 80 });
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);

  useEffect(
    () => runtime.subscribe((event: TeamEvent) => dispatch({ type: 'event', event })),
    [runtime],
  );

  useEffect(() => {
    if (props.initialPrompt === undefined) return;
    const text = props.initialPrompt;
    dispatch({ type: 'person', to: LEAD_NAME, text });
    runtime.prompt(text).catch((error: unknown) =>
      dispatch({
        type: 'notice',
        level: 'error',
        text: `The lead could not take the prompt: ${messageOf(error)}`,
      }),
    );
  }, [runtime, props.initialPrompt]);

  // The runtime's teammates and status line, and the screen of a selected pty teammate.
  useEffect(() => {
    let stopped = false;
    let reading = false;
    const timer = setInterval(() => {
      dispatch({ type: 'roster', ...readRoster(runtime) });
      const selected = keyboardRef.current.selected;
      if (selected === LEAD_NAME || reading) return;
      reading = true;
      readScreen(runtime, selected)
        .then((text) => {
          if (!stopped && text !== undefined)
            dispatch({ type: 'screen', agentName: selected, text });
        })
        .catch(() => undefined)
        .finally(() => {
          reading = false;
        });
    }, ROSTER_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [runtime]);

  // The countdown while the team shuts down, and leaving once the runtime is closed.
  useEffect(() => {
    const timer = setInterval(() => {
      if (ending.deadline() !== undefined) setTick((tick) => tick + 1);
    }, 250);
    void ending.done.then(() => exit());
    return () => clearInterval(timer);
  }, [ending, exit]);

  const run = useCallback(
    (command: KeyCommand) => {
      const report = (what: string) => (error: unknown) =>
        dispatch({ type: 'notice', level: 'error', text: `${what}: ${messageOf(error)}` });
      switch (command.type) {
        case 'prompt':
          dispatch({ type: 'person', to: LEAD_NAME, text: command.text });
          runtime.prompt(command.text).catch(report('The lead could not take the message'));
          return;
        case 'message':
          runtime
            .messageTeammate(command.to, command.text)
            .catch(report(`The message to ${command.to} was not sent`));
          return;
        case 'answer':
          answeredRef.current.add(command.askId);
          runtime
            .answer(command.askId, {
              behavior: command.behavior,
              ...(command.scope === undefined ? {} : { scope: command.scope }),
              ...(command.message === undefined ? {} : { message: command.message }),
            })
            .catch(report('The answer was not taken'));
          return;
        case 'interrupt':
          if (runtime.interrupt()) {
            dispatch({
              type: 'notice',
              level: 'info',
              text: "Interrupted the lead's turn (Esc); the teammates keep working.",
            });
          }
          return;
        case 'stop':
          ending.stop('Ctrl-C');
          setTick((tick) => tick + 1);
          return;
      }
    },
    [runtime, ending],
  );

  const deadline = ending.deadline();
  const stopping: StoppingView | undefined =
    deadline === undefined
      ? undefined
      : {
          secondsLeft: Math.max(0, Math.ceil((deadline - Date.now()) / 1000)),
          forced: ending.forced(),
        };
  const screen = { model, keyboard, style, rows: size.rows, columns: size.columns };

  useInput((input, key) => {
    const current = modelRef.current;
    const waiting = current.asks.filter((candidate) => !answeredRef.current.has(candidate.askId));
    const ask = currentAsk(waiting, keyboardRef.current);
    const result = handleKey(keyboardRef.current, input, key, {
      agents: selectableAgents(current),
      ...(ask === undefined ? {} : { ask }),
      waitingAsks: waiting.length,
      leadTurnRunning: current.conversations[LEAD_NAME]?.turnRunning === true,
      stopping: deadline !== undefined,
      pageRows: conversationPageRows(screen),
    });
    keyboardRef.current = result.state;
    setKeyboard(result.state);
    if (result.command !== undefined) run(result.command);
  });

  return <SessionScreen {...screen} {...(stopping === undefined ? {} : { stopping })} />;
}
