// The interactive app of `muster run` and `muster demo --run`: it folds the team's events and
// files into the view-model, draws the screen, and turns keys into the runtime's calls. All
// coordination stays in the runtime (@muster/agents); the app only shows and forwards.
import { useApp, useInput, useStdout } from 'ink';
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type { TeamEvent, TeamRuntime } from '@muster/agents';
import type { TokenUsage } from '@muster/query';
import type { TerminalStyle } from '../terminal-style.js';
import {
  handleKey,
  INITIAL_KEYBOARD,
  type KeyCommand,
  type KeyboardState,
} from './key-handling.js';
import { SessionScreen, conversationPageRows } from './session-screen.js';
import {
  LEAD_NAME,
  reduceSession,
  selectableAgents,
  type DiskSnapshot,
  type SessionModel,
} from './session-model.js';
import type { SessionEnding } from './session-ending.js';
import type { StoppingView } from './panel-rows.js';

/** How often the team's files are read again (tasks, colors). */
const DISK_POLL_MS = 1_000;

/** The part of the runtime the app uses. */
export type AppRuntime = Pick<
  TeamRuntime,
  'subscribe' | 'prompt' | 'interrupt' | 'answer' | 'messageTeammate' | 'teamName'
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
  /** Reads the team's files (default: nothing is read). */
  loadDisk?: (teamName: string) => Promise<DiskSnapshot>;
  /**
   * The estimated cost of one request of an agent (`estimateCostUsd` of @muster/query), or
   * undefined when it cannot be priced. Without it no cost is shown (the scripted demo).
   */
  priceRequest?: (agentName: string, usage: TokenUsage, model: SessionModel) => number | undefined;
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

  // The team's files: read once a second while the lead has a team.
  useEffect(() => {
    const load = props.loadDisk;
    if (load === undefined) return;
    let stopped = false;
    let reading = false;
    const timer = setInterval(() => {
      const teamName = runtime.teamName();
      if (teamName === undefined || reading) return;
      reading = true;
      load(teamName)
        .then((snapshot) => {
          if (!stopped) dispatch({ type: 'disk', snapshot });
        })
        .catch(() => undefined)
        .finally(() => {
          reading = false;
        });
    }, DISK_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [runtime, props.loadDisk]);

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
    const ask = current.asks.find((candidate) => !answeredRef.current.has(candidate.askId));
    const result = handleKey(keyboardRef.current, input, key, {
      agents: selectableAgents(current),
      ...(ask === undefined ? {} : { ask }),
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
