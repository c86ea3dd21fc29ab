// What happens to a delivery's events after the webhook has been answered: authorise the sender, store
// each valid command as an intent, acknowledge it, refuse once, or answer a malformed command with its
// usage. Nothing here runs work: an intent is queued for the orchestrator, and the ack is an `eyes`
// reaction on the command's comment; the orchestrator comments once, when it has acted on it.
import { type AuthDecision, type AuthPolicy, decidePermission, decideSender } from '../commands/authorize.ts';
import { commentPermission } from '../commands/command-permission.ts';
import { formatParseError } from '../commands/parse.ts';
import type { Forge, ForgeKind, RepoRef } from '../forges/types.ts';
import { formatRepo } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Store } from '../store/types.ts';
import type { Actor, CommandEvent, ForgeEvent } from './events.ts';
import type { RepoPolicyLoader } from './repo-policy.ts';

/** Finds the forge connection for an event: by forge kind and, on GitHub, the installation. */
/** `repo` with `installationId`: a webhook's, so the resolver knows that installation covers it. */
export type ForgeResolver = (target: {
  forge: ForgeKind;
  installationId?: number;
  repo?: RepoRef;
}) => Promise<Forge>;

export interface ProcessDeps {
  store: Store;
  forges: ForgeResolver;
  policies: Record<ForgeKind, AuthPolicy>;
  logger: Logger;
  metrics: Metrics;
  /** Combines the operator's policy with the repository's blitz.yml; absent, the operator's policy alone. */
  repoPolicy?: RepoPolicyLoader;
  /**
   * Forges whose comments the bot reads back after an outage (intake/recover.ts): each comment taken
   * is marked in the store by its id (`comment:<id>`), and one already marked is not taken again.
   */
  commentMarks?: ForgeKind[];
  /** Where the orchestrator will subscribe to non-command events; until then they are logged only. */
  onEvent?: (event: ForgeEvent) => Promise<void>;
}

export interface DeliveryWork {
  forge: ForgeKind;
  deliveryId: string;
  events: ForgeEvent[];
}

const refusal = (login: string, policy: AuthPolicy): string =>
  `@${login}, sorry: bot commands need ${policy.required} permission on this repository, so nothing was started.`;

/** Sender first (bots, the bot itself), then the repository permission when the sender alone cannot tell. */
const authorise = async (
  forge: Forge,
  repo: RepoRef,
  actor: Actor,
  policy: AuthPolicy,
): Promise<AuthDecision> => {
  const first = decideSender(actor, policy);
  if (first !== 'needs_permission') return first;
  return decidePermission(await forge.getPermission(repo, actor.login), policy, actor.login);
};

export const createEventProcessor = (deps: ProcessDeps) => {
  const { store, logger, metrics } = deps;

  const handleComment = async (work: DeliveryWork, events: { event: CommandEvent; seq: number }[]) => {
    const { event: head } = events[0]!;
    const base = deps.policies[head.forge];
    const sender = decideSender(head.sender, base);
    // The bot's own comments are dropped before anything is read: no loop, no API call.
    if (sender !== 'needs_permission' && !sender.allowed && sender.reason === 'self') {
      for (const { event } of events) metrics.commands.inc({ name: commandName(event), outcome: 'ignored' });
      return;
    }
    // Where comments are recovered after an outage, a comment taken once (live or recovered) is
    // marked by its id, so the other path does not answer it again (a refusal included). The mark is
    // claimed before the comment is taken, in the store's one deduplicating write (recovery's delivery
    // `comment:<id>` is the same row): whichever path claims first takes it, with no window between a
    // look and a write for the other to slip through. A delivery retried after it claimed the mark
    // (a crash, a forge error) finds its own claim and goes on.
    const key = commentKey(head.commentId);
    if (deps.commentMarks?.includes(head.forge) === true && work.deliveryId !== key) {
      const reason = `comment taken with delivery ${work.deliveryId}`.slice(0, 300);
      const claim = await store.recordDelivery({
        forge: head.forge,
        deliveryId: key,
        event: 'comment',
        outcome: 'ignored',
        reason,
      });
      const mine =
        claim.outcome !== 'duplicate' ||
        (await store.listDeliveries({ forge: head.forge, deliveryId: key })).some(
          (d) => d.outcome !== 'duplicate' && d.reason === reason,
        );
      if (!mine) {
        for (const { event } of events)
          metrics.commands.inc({ name: commandName(event), outcome: 'duplicate' });
        logger.info(
          { delivery: work.deliveryId, comment: head.commentId },
          'comment already taken; not again',
        );
        return;
      }
    }
    await takeComment(work, events, base);
  };

  const takeComment = async (
    work: DeliveryWork,
    events: { event: CommandEvent; seq: number }[],
    base: AuthPolicy,
  ) => {
    const { event: head } = events[0]!;
    const forge = await deps.forges({
      forge: head.forge,
      installationId: head.installationId,
      repo: head.repo,
    });
    const issue = { repo: head.repo, number: head.issueNumber };
    const repoPolicy = deps.repoPolicy
      ? await deps.repoPolicy(forge, head.repo, base)
      : { ok: true as const, policy: base };
    const chosen = repoPolicy.ok ? repoPolicy.policy : base;
    // Steering commands (retry, skip, tell…) need write access even where readers may start runs.
    const commands = events.flatMap(({ event }) => (event.parsed.ok ? [event.parsed.command] : []));
    const policy = { ...chosen, required: commentPermission(commands, chosen.required) };
    const decision = await authorise(forge, head.repo, head.sender, policy);
    if (!decision.allowed) {
      for (const { event } of events) {
        metrics.commands.inc({
          name: commandName(event),
          outcome: decision.reason === 'insufficient_permission' ? 'refused' : 'ignored',
        });
      }
      logger.info(
        { delivery: work.deliveryId, login: head.sender.login, reason: decision.reason },
        'command not authorised',
      );
      // Bots and the bot itself get silence (no loops); a person without permission gets one reply.
      if (decision.reason === 'insufficient_permission') {
        await forge.createComment(issue, decision.reply ?? refusal(head.sender.login, policy));
      }
      return;
    }
    if (!repoPolicy.ok) {
      for (const { event } of events)
        metrics.commands.inc({ name: commandName(event), outcome: 'config_invalid' });
      await forge.createComment(issue, repoPolicy.reply);
      return;
    }
    let queued = 0;
    const unreadable: string[] = [];
    for (const { event } of events) {
      const p = event.parsed;
      if (!p.ok) {
        metrics.commands.inc({ name: commandName(event), outcome: 'malformed' });
        unreadable.push(formatParseError(p));
        continue;
      }
      const { created } = await store.addIntent({
        forge: event.forge,
        repo: formatRepo(event.repo),
        issueNumber: event.issueNumber,
        command: p.command,
        sender: event.sender.login,
        // Keyed by the forge's comment and the command's line, not the delivery: the same comment
        // delivered again under a new delivery id (a replay, a manual redelivery) stores nothing new.
        deliveryId: commentKey(event.commentId),
        seq: event.parsed.line,
      });
      metrics.commands.inc({ name: p.command.name, outcome: created ? 'queued' : 'duplicate' });
      if (created) queued++;
    }
    // One reply for all the commands of a comment that could not be read, not one per line.
    if (unreadable.length > 0) await forge.createComment(issue, unreadable.join('\n\n---\n\n'));
    // Seen, not yet done: the answer (a dashboard, a refusal, a reply) is the orchestrator's, once.
    if (queued > 0) await forge.reactToComment(head.repo, head.commentId, 'eyes');
  };

  const handleSignal = async (
    work: DeliveryWork,
    event: Extract<ForgeEvent, { kind: 'milestone-signal' }>,
    seq: number,
  ) => {
    const base = deps.policies[event.forge];
    const sender = decideSender(event.sender, base);
    if (sender !== 'needs_permission' && !sender.allowed && sender.reason === 'self') return;
    const forge = await deps.forges({
      forge: event.forge,
      installationId: event.installationId,
      repo: event.repo,
    });
    const repoPolicy = deps.repoPolicy
      ? await deps.repoPolicy(forge, event.repo, base)
      : { ok: true as const, policy: base };
    const policy = repoPolicy.ok ? repoPolicy.policy : base;
    const decision = await authorise(forge, event.repo, event.sender, policy);
    if (decision.allowed && !repoPolicy.ok) {
      logger.info({ delivery: work.deliveryId }, 'signal not taken: the repository config does not parse');
      if (event.issueNumber !== undefined) {
        await forge.createComment({ repo: event.repo, number: event.issueNumber }, repoPolicy.reply);
      }
      return;
    }
    if (!decision.allowed) {
      logger.info(
        { delivery: work.deliveryId, login: event.sender.login, reason: decision.reason },
        'signal not authorised',
      );
      if (decision.reason === 'insufficient_permission' && event.issueNumber !== undefined) {
        await forge.createComment(
          { repo: event.repo, number: event.issueNumber },
          decision.reply ?? refusal(event.sender.login, policy),
        );
      }
      return;
    }
    await store.addIntent({
      forge: event.forge,
      repo: formatRepo(event.repo),
      ...(event.issueNumber !== undefined ? { issueNumber: event.issueNumber } : {}),
      // A signal stands for `/blitz <that milestone>`.
      command: { name: 'blitz', milestone: String(event.milestone.number), dryRun: false },
      sender: event.sender.login,
      deliveryId: work.deliveryId,
      seq,
    });
  };

  /** Process one delivery's events, in order; the caller records the delivery as processed. */
  return async (work: DeliveryWork): Promise<void> => {
    const byComment = new Map<number, { event: CommandEvent; seq: number }[]>();
    for (const [seq, event] of work.events.entries()) {
      if (event.kind === 'command') {
        const group = byComment.get(event.commentId) ?? [];
        group.push({ event, seq });
        byComment.set(event.commentId, group);
      } else if (event.kind === 'milestone-signal') {
        await handleSignal(work, event, seq);
      } else if (deps.onEvent) {
        await deps.onEvent(event);
      } else {
        logger.debug({ delivery: work.deliveryId, kind: event.kind }, 'event has no consumer yet');
      }
    }
    for (const group of byComment.values()) await handleComment(work, group);
  };
};

/** The intent key of a comment's commands (with the line as seq): one comment id, one set of intents. */
export const commentKey = (commentId: number): string => `comment:${commentId}`;

const commandName = (event: CommandEvent): string =>
  event.parsed.ok ? event.parsed.command.name : event.parsed.word;
