// Ideas and moderation: the records the store keeps (no $id) and the API shapes (with $id).
import { Type, type Static } from '@sinclair/typebox';
import { assumed, Nullable, PersonBrief, ref, Stamp, Uuid } from './common.js';
import { FeedbackRecord } from './feedback.js';

// ---------------------------------------------------------------- records

/**
 * Idea status codes (assumed): 1 on moderation, 2 new, 3 under
 * review, 4 accepted, 5 in progress, 6 implemented, 7 rejected.
 */
export const IdeaStatusCode = {
  moderation: 1,
  new: 2,
  review: 3,
  accepted: 4,
  inProgress: 5,
  implemented: 6,
  rejected: 7,
} as const;

export const IdeaRecord = Type.Object({
  id: Uuid,
  title: Type.String(),
  description: Type.String(),
  authorId: Uuid,
  purposeId: Type.Integer({ minimum: 1 }),
  statusId: Type.Integer({ minimum: 1, maximum: 7 }),
  performerId: Nullable(Uuid),
  createdAt: Stamp,
  updatedAt: Stamp,
  voterIds: Type.Array(Uuid),
  participantIds: Type.Array(Uuid),
  /** who accepted or rejected it in moderation, and when */
  moderatedBy: Nullable(Uuid),
  moderatedAt: Nullable(Stamp),
});
export type IdeaRecord = Static<typeof IdeaRecord>;

export const IdeaCommentRecord = Type.Object({
  id: Uuid,
  ideaId: Uuid,
  userId: Uuid,
  text: Type.String(),
  createdAt: Stamp,
  /** pending until a moderator accepts (published) or rejects it */
  status: Type.Union([Type.Literal('pending'), Type.Literal('published'), Type.Literal('rejected')]),
});
export type IdeaCommentRecord = Static<typeof IdeaCommentRecord>;

/** The collections of the ideas, feedback and moderation groups (one spread into TenantData). */
export const EngageCollections = {
  ideas: Type.Array(IdeaRecord),
  ideaComments: Type.Array(IdeaCommentRecord),
  feedback: Type.Array(FeedbackRecord),
};

// ---------------------------------------------------------------- API shapes

export const IdeaStatus = Type.Object(
  {
    id: Type.Integer({
      description: '1 on moderation, 2 new, 3 under review, 4 accepted, 5 in progress, 6 implemented, 7 rejected',
    }),
    name: Type.String({ description: 'in the tenant language' }),
    color: Type.String({ description: 'hex colour' }),
    isFinal: Type.Boolean({ description: 'no further moves from this status' }),
  },
  { $id: 'IdeaStatus', ...assumed('An idea status.') },
);
export type IdeaStatus = Static<typeof IdeaStatus>;

export const IdeaStatuses = Type.Object(
  { data: Type.Array(ref(IdeaStatus)) },
  { $id: 'IdeaStatuses', ...assumed('The idea statuses.') },
);

export const IdeaPurpose = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String({ description: 'in the tenant language' }),
    description: Type.String(),
  },
  { $id: 'IdeaPurpose', ...assumed('An idea purpose (what the idea aims at).') },
);
export type IdeaPurpose = Static<typeof IdeaPurpose>;

export const IdeaPurposes = Type.Object(
  { data: Type.Array(ref(IdeaPurpose)) },
  { $id: 'IdeaPurposes', ...assumed('The idea purposes.') },
);

const ideaFields = {
  id: Uuid,
  title: Type.String(),
  description: Type.String(),
  idea_status_id: Type.Integer(),
  idea_purpose_id: Type.Integer(),
  created_user_id: Type.String(),
  performer_id: Nullable(Type.String()),
  created_at: Stamp,
  updated_at: Stamp,
  status: ref(IdeaStatus),
  purpose: ref(IdeaPurpose),
  user: ref(PersonBrief),
  performer: Nullable(ref(PersonBrief)),
  votesCount: Type.Integer({ minimum: 0 }),
  participantsCount: Type.Integer({ minimum: 0 }),
  commentsCount: Type.Integer({ minimum: 0, description: 'published comments' }),
  isVoted: Type.Boolean({ description: 'the current user voted for it' }),
  isParticipant: Type.Boolean({ description: 'the current user takes part in it' }),
  url: Type.String({ description: 'absolute address of the idea web page' }),
};

export const IdeaIndex = Type.Object(ideaFields, {
  $id: 'IdeaIndex',
  ...assumed('An idea in lists; filter names follow the API description.'),
});
export type IdeaIndex = Static<typeof IdeaIndex>;

export const IdeaComment = Type.Object(
  {
    id: Type.String(),
    text: Type.String(),
    created_at: Stamp,
    user: ref(PersonBrief),
  },
  { $id: 'IdeaComment', ...assumed('A published comment of an idea.') },
);

export const IdeaView = Type.Object(
  {
    ...ideaFields,
    voters: Type.Array(ref(PersonBrief)),
    participants: Type.Array(ref(PersonBrief)),
    comments: Type.Array(ref(IdeaComment)),
    canEdit: Type.Boolean({ description: 'the current user is the author' }),
    moderated_at: Nullable(Stamp),
  },
  { $id: 'IdeaView', ...assumed('An idea with its voters, participants and comments.') },
);
export type IdeaView = Static<typeof IdeaView>;

export const IdeaEdit = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'required when creating' })),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 10000, description: 'required when creating' })),
    idea_purpose_id: Type.Optional(
      Type.Integer({ minimum: 1, description: 'one of /idea/purposes; required when creating' }),
    ),
    performer_id: Type.Optional(
      Nullable(Type.String({ format: 'uuid', description: 'a user of the tenant who would carry it out' })),
    ),
  },
  { $id: 'IdeaEdit', ...assumed('The idea form; on edit, absent fields stay as they are.') },
);
export type IdeaEdit = Static<typeof IdeaEdit>;

export const IdeaToggleResult = Type.Object(
  {
    success: Type.Boolean(),
    status: Type.Boolean({ description: 'the new state: voted / taking part' }),
    message: Type.String({ description: 'localized text for the user' }),
    count: Type.Optional(Type.Integer({ minimum: 0, ...assumed('votes or participants after the change') })),
  },
  { $id: 'IdeaToggleResult' },
);
export type IdeaToggleResult = Static<typeof IdeaToggleResult>;

// ---------------------------------------------------------------- moderation

export const ModerationItem = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'send it in arrayOfIds' }),
    type: Type.Union([Type.Literal('idea'), Type.Literal('comment')]),
    title: Type.String({ description: 'idea title (for a comment: the title of its idea)' }),
    text: Type.String({ description: 'idea description or comment text' }),
    idea_id: Type.String({ format: 'uuid', description: 'the idea itself, or the idea a comment belongs to' }),
    created_at: Stamp,
    user: ref(PersonBrief),
    url: Type.String(),
  },
  { $id: 'ModerationItem', ...assumed('An item waiting for a moderator.') },
);
export type ModerationItem = Static<typeof ModerationItem>;

export const Moderation = Type.Object(
  {
    count: Type.Integer({ minimum: 0 }),
    data: Type.Array(ref(ModerationItem)),
  },
  { $id: 'Moderation', ...assumed('The moderation queue of the current user (oldest first).') },
);
export type Moderation = Static<typeof Moderation>;

const IdsArray = Type.Array(Uuid, { minItems: 1, maxItems: 100, uniqueItems: true });
export const ArrayOfIds = Type.Union([Type.Object({ ids: IdsArray }), IdsArray], {
  $id: 'ArrayOfIds',
  ...assumed('Either {"ids": [uuid, …]} or a bare JSON array of uuids; 1 to 100 ids.'),
});
export type ArrayOfIds = Static<typeof ArrayOfIds>;

export const ModerationResult = Type.Object(
  {
    success: Type.Boolean(),
    message: Type.String({ description: 'localized text for the user' }),
  },
  { $id: 'ModerationResult' },
);

export const ideaSchemas = [
  IdeaStatus,
  IdeaStatuses,
  IdeaPurpose,
  IdeaPurposes,
  IdeaIndex,
  IdeaComment,
  IdeaView,
  IdeaEdit,
  IdeaToggleResult,
  ModerationItem,
  Moderation,
  ArrayOfIds,
  ModerationResult,
];
