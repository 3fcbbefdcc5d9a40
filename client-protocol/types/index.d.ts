/* Generated from ../schemas by scripts/generate-types.mjs (json-schema-to-typescript): do not edit. */
// Every root type, and each schema file's types under a namespace (a file's shared
// definitions, e.g. MatchState, appear in every file that uses them).
export type { Action } from "./action.js";
export type { ClientMessage } from "./client-message.js";
export type { CreateMatch } from "./create-match.js";
export type { Event } from "./event.js";
export type { MatchDefinition } from "./match-definition.js";
export type { MatchState } from "./match-state.js";
export type { ReplayClientMessage } from "./replay-client-message.js";
export type { ReplayServerMessage } from "./replay-server-message.js";
export type { ServerMessage } from "./server-message.js";
export * as action from "./action.js";
export * as clientMessage from "./client-message.js";
export * as createMatch from "./create-match.js";
export * as event from "./event.js";
export * as matchDefinition from "./match-definition.js";
export * as matchState from "./match-state.js";
export * as replayClientMessage from "./replay-client-message.js";
export * as replayServerMessage from "./replay-server-message.js";
export * as serverMessage from "./server-message.js";
