// Feedback about users or departments: the record the store keeps (no $id) and the API shapes.
import { Type, type Static } from '@sinclair/typebox';
import { assumed, Nullable, ref } from './common.js';

export const FeedbackRecord = Type.Object({
  id: Type.String({ format: 'uuid' }),
  authorId: Type.String({ format: 'uuid' }),
  targetType: Type.Union([Type.Literal('user'), Type.Literal('department')]),
  targetId: Type.String({ format: 'uuid' }),
  score: Type.Integer({ minimum: 1, maximum: 5 }),
  text: Type.String(),
  isAnonymous: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});
export type FeedbackRecord = Static<typeof FeedbackRecord>;

export const FeedbackAdd = Type.Object({
  userId: Type.Optional(Type.String({ format: 'uuid', description: 'user on whose behalf the feedback is created: the current user (absent means the current user; another user is 403)' })),
  type: Type.Union([Type.Literal('department'), Type.Literal('user')], { description: 'entity type' }),
  id: Type.String({ format: 'uuid', description: 'entity id: a user or department of the tenant' }),
  score: Type.Integer({ minimum: 1, maximum: 5, description: '1 to 5 (whole numbers)' }),
  text: Type.String({ maxLength: 5000, description: 'feedback text (may be empty)' }),
  isAnonymous: Type.Optional(Type.Boolean({ default: false })),
}, { $id: 'FeedbackAdd' });
export type FeedbackAdd = Static<typeof FeedbackAdd>;

const Brief = Type.Object({ id: Type.String(), name: Type.String(), faceUrl: Nullable(Type.String()) });

export const Feedback = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Type.Union([Type.Literal('department'), Type.Literal('user')]),
  entity_id: Type.String({ format: 'uuid' }),
  entity: Type.Object({ id: Type.String(), name: Type.String(), faceUrl: Nullable(Type.String({ description: 'avatar of a user; null for a department' })) }),
  score: Type.Integer({ minimum: 1, maximum: 5 }),
  text: Type.String(),
  isAnonymous: Type.Boolean(),
  author: Nullable(Brief, { description: 'null when anonymous' }),
  created_at: Type.String({ format: 'date-time' }),
}, { $id: 'Feedback', ...assumed('A feedback entry. The author is never shown for anonymous feedback.') });
export type Feedback = Static<typeof Feedback>;

export const FeedbackAddResult = Type.Object({
  success: Type.Boolean(),
  feedback: ref(Feedback),
  message: Type.Optional(Type.String(assumed('localized text for the user'))),
}, { $id: 'FeedbackAddResult' });

export const feedbackSchemas = [FeedbackAdd, Feedback, FeedbackAddResult];
