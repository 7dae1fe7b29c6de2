import type { RegisterGroup } from '../types.js';
import { audioCommand } from './audio.js';
import { cancelCommand } from './cancel.js';
import { getCommand } from './get.js';
import { listCommand } from './list.js';
import { recordingCommand } from './recording.js';
import { tailCommand } from './tail.js';
import { transcriptCommand } from './transcript.js';

/** The calls group: list, get, transcript, recording, audio, cancel, and tail (CLI-EVENTS'). */
export const register: RegisterGroup = (group, makeContext) => {
  group.addCommand(listCommand(makeContext));
  group.addCommand(getCommand(makeContext));
  group.addCommand(transcriptCommand(makeContext));
  group.addCommand(recordingCommand(makeContext));
  group.addCommand(audioCommand(makeContext));
  group.addCommand(cancelCommand(makeContext));
  group.addCommand(tailCommand(makeContext));
};
