import { Elysia } from 'elysia';
import { createRegister } from '@pos/core/pos-admin/create-register';
import { listRegisters } from '@pos/core/pos-admin/list-registers';
import { pairTerminal } from '@pos/core/pos-admin/pair-terminal';
import { relabelTerminal } from '@pos/core/pos-admin/relabel-terminal';
import { retireRegister } from '@pos/core/pos-admin/retire-register';
import { unpairTerminal } from '@pos/core/pos-admin/unpair-terminal';
import { updateRegister } from '@pos/core/pos-admin/update-register';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { locationGate, scopeOf, doc } from '../pos-admin/pos-admin-gates.ts';
import * as P from '../pos-admin/pos-admin.schemas.ts';
import * as S from './pos-admin-registers.schemas.ts';

/** A location's registers and their card terminals (VIEW_POS_CONFIGURATION to read, MANAGE_POS_CONFIGURATION to write). Auth, type:backoffice and admin-vendor-override on the group; the gates are in pos-admin-gates.ts. */
export function posAdminRegisterRoutes(deps: ApiDeps) {
  const tags = ['Register administration: registers, drawers, fiscal devices'];
  return (
    new Elysia({ name: 'pos-admin-registers', prefix: '/back-office/pos' })
      .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
      .get('/:locationId/registers', async (ctx) => ({ data: await listRegisters(scopeOf(deps, ctx), ctx.params.locationId, { includeRetired: ctx.query.include_retired }) }), {
        params: P.LocationParams,
        query: P.IncludeRetiredQuery,
        response: { 200: S.RegisterList },
        transform: locationGate('VIEW_POS_CONFIGURATION'),
        ...doc(tags, 'List registers', 'Live registers of the location (retired ones too with `include_retired=true`).'),
      })
      .post(
        '/:locationId/registers',
        async (ctx) => {
          const data = await createRegister(scopeOf(deps, ctx), ctx.params.locationId, ctx.body);
          ctx.set.status = 201;
          return { data };
        },
        {
          params: P.LocationParams,
          body: S.CreateRegisterBody,
          query: P.VendorQuery,
          response: { 201: S.RegisterResponse },
          transform: locationGate('MANAGE_POS_CONFIGURATION'),
          ...doc(tags, 'Create a register', 'Body `{name, device_id?, drawer_id?}`: a live POS device of the location not held by another live register, a live drawer of the location (422 otherwise).'),
        },
      )
      .put('/:locationId/registers/:registerId', async (ctx) => ({ data: await updateRegister(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.registerId, ctx.body) }), {
        params: S.RegisterParams,
        body: S.UpdateRegisterBody,
        query: P.VendorQuery,
        response: { 200: S.RegisterResponse },
        transform: locationGate('MANAGE_POS_CONFIGURATION'),
        ...doc(tags, 'Update a register', 'Any of `name`, `device_id`, `drawer_id` (null unbinds). 409 for a retired register.'),
      })
      .post('/:locationId/registers/:registerId/retire', async (ctx) => ({ data: await retireRegister(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.registerId) }), {
        params: S.RegisterParams,
        query: P.VendorQuery,
        response: { 200: S.RegisterResponse },
        transform: locationGate('MANAGE_POS_CONFIGURATION'),
        ...doc(tags, 'Retire a register', 'Sets `retired_at` (idempotent).'),
      })
      .post(
        '/:locationId/registers/:registerId/pair-terminal',
        async (ctx) => ({ data: await pairTerminal(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.registerId, ctx.body) }),
        {
          params: S.RegisterParams,
          body: S.PairTerminalBody,
          query: P.VendorQuery,
          response: { 200: S.RegisterResponse },
          transform: locationGate('MANAGE_POS_CONFIGURATION'),
          ...doc(tags, 'Pair a card terminal', 'Body `{provider (card-a, card-b, platform-a), terminal_id, label?}`, stored in `terminal` with `paired_at`. 409 when the terminal is paired with another live register or bound to a live kiosk (`PUT /back-office/devices/{id}`).'),
        },
      )
      .delete('/:locationId/registers/:registerId/terminal', async (ctx) => ({ data: await unpairTerminal(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.registerId) }), {
        params: S.RegisterParams,
        query: P.VendorQuery,
        response: { 200: S.RegisterResponse },
        transform: locationGate('MANAGE_POS_CONFIGURATION'),
        ...doc(tags, 'Unpair the card terminal', '`terminal` becomes null (idempotent).'),
      })
      .patch(
        '/:locationId/registers/:registerId/terminal/label',
        async (ctx) => ({ data: await relabelTerminal(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.registerId, ctx.body.label) }),
        {
          params: S.RegisterParams,
          body: S.TerminalLabelBody,
          query: P.VendorQuery,
          response: { 200: S.RegisterResponse },
          transform: locationGate('MANAGE_POS_CONFIGURATION'),
          ...doc(tags, 'Rename the paired terminal', 'Body `{label}` (null clears it). 404 `terminal` when none is paired.'),
        },
      )
  );
}
