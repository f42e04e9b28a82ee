/**
 * Boards: the staff board's paired devices and the room's displays, how they pair, and what a
 * display shows. What the root module of the tickets subgraph composes; nothing else uses it.
 */
export { BoardRepository } from './board.repository';
export { BoardService } from './board.service';
export { BoardResolver } from './board.resolver';
