// Feedback about users or departments: the record the store keeps (no $id) and the API shapes.
import { Type, type Static } from '@sinclair/typebox';
import { assumed, Nullable, ref, Stamp, Uuid } from './common.js';

export const FeedbackRecord = Type.Object({
  id: Uuid,
  authorId: Uuid,
  targetType: Type.Union([Type.Literal('user'), Type.Literal('department')]),
  targetId: Uuid,
  score: Type.Integer({ minimum: 1, maximum: 5 }),
  text: Type.String(),
  isAnonymous: Type.Boolean(),
  createdAt: Stamp,
});
export type FeedbackRecord = Static<typeof FeedbackRecord>;

export const FeedbackAdd = Type.Object(
  {
    userId: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'user on whose behalf the feedback is created: the current ' +
          'user (absent means the current user; another user is 403)',
      }),
    ),
    type: Type.Union([Type.Literal('department'), Type.Literal('user')], { description: 'entity type' }),
    id: Type.String({ format: 'uuid', description: 'entity id: a user or department of the tenant' }),
    score: Type.Integer({ minimum: 1, maximum: 5, description: '1 to 5 (whole numbers)' }),
    text: Type.String({ maxLength: 5000, description: 'feedback text (may be empty)' }),
    isAnonymous: Type.Optional(Type.Boolean({ default: false })),
  },
  { $id: 'FeedbackAdd' },
);
export type FeedbackAdd = Static<typeof FeedbackAdd>;

const Brief = Type.Object({ id: Type.String(), name: Type.String(), faceUrl: Nullable(Type.String()) });

export const Feedback = Type.Object(
  {
    id: Uuid,
    type: Type.Union([Type.Literal('department'), Type.Literal('user')]),
    entity_id: Uuid,
    entity: Type.Object({
      id: Type.String(),
      name: Type.String(),
      faceUrl: Nullable(Type.String({ description: 'avatar of a user; null for a department' })),
    }),
    score: Type.Integer({ minimum: 1, maximum: 5 }),
    text: Type.String(),
    isAnonymous: Type.Boolean(),
    author: Nullable(Brief, { description: 'null when anonymous' }),
    created_at: Stamp,
  },
  { $id: 'Feedback', ...assumed('A feedback entry. The author is never shown for anonymous feedback.') },
);
export type Feedback = Static<typeof Feedback>;

export const FeedbackAddResult = Type.Object(
  {
    success: Type.Boolean(),
    feedback: ref(Feedback),
    message: Type.Optional(Type.String(assumed('localized text for the user'))),
  },
  { $id: 'FeedbackAddResult' },
);

export const feedbackSchemas = [FeedbackAdd, Feedback, FeedbackAddResult];
