import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors } from '../../schemas/common.js';
import { fail } from '../../errors.js';
import { ClockAnswer, ClockChange, clockRangeText } from '../../schemas/control.js';
import { nextClockState } from '../../store/clock.js';
import { SandboxQuery } from '../sandbox.js';

const tags = ['mock'];

/** The sandbox clock: read it; freeze, shift, advance or release it. */
export const clockRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/clock',
    {
      schema: {
        operationId: 'mockClockGet',
        tags,
        summary: 'The sandbox clock',
        querystring: SandboxQuery,
        description:
          'The sandbox clock: its state (real, offset or frozen) and the time it shows now. A sandbox that does not ' +
          'exist is a 404 (SANDBOX_NOT_FOUND); reading creates nothing.',
        response: { 200: ClockAnswer, ...errors(400, 401, 404, 502, 503) },
      },
      config: { sandbox: 'read' },
    },
    async (req) => ({ now: req.mock.sandbox.clock.iso(), state: req.mock.sandbox.clock.state }),
  );

  app.put(
    '/clock',
    {
      schema: {
        operationId: 'mockClockSet',
        tags,
        summary: 'Freeze, shift, advance or release the sandbox clock',
        description:
          'One of: {"freeze": ISO} stops time at an instant; {"offsetMs": N} runs real time shifted by N ms; ' +
          '{"advanceMs": N} moves the clock forward keeping its mode; {"mode": "real"} releases it. The time the ' +
          `clock shows must stay within ${clockRangeText}: a change past it is a 400 naming the field, and the ` +
          'clock (and a sandbox the call would have made) stays as it was.',
        querystring: SandboxQuery,
        body: Type.Object({ ...ClockChange.properties, sandbox: Type.Optional(Type.String()) }),
        response: { 200: ClockAnswer, ...errors(400, 401) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const b = req.body;
      const given = [b.freeze, b.offsetMs, b.advanceMs, b.mode].filter((v) => v !== undefined).length;
      if (given !== 1)
        throw fail.validation('give exactly one of freeze, offsetMs, advanceMs, mode', [
          { field: 'body', message: 'exactly one of freeze, offsetMs, advanceMs, mode' },
        ]);
      const { clock } = req.mock.sandbox;
      const next = nextClockState(clock.state, b);
      if ('problem' in next)
        throw fail.validation(`${next.field}: ${next.problem}; the clock is unchanged`, [
          { field: `body.${next.field}`, message: next.problem },
        ]);
      clock.state = next.state;
      return { now: clock.iso(), state: clock.state };
    },
  );
};
