"""The acta as Spanish text, for printing and for the inspector."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import ROUND_FLOOR, Decimal
from typing import Any

from bingo_hall.domain.cards import ROW_NAMES

Json = dict[str, Any]

CLAIM_KINDS = {"line": "línea", "bingo": "bingo"}
REASONS = {
    "card_not_sold": "cartón no vendido en esta partida",
    "line_already_won": "la línea ya había sido cantada correctamente",
    "not_complete": "combinación incompleta",
    "not_designated_row": "no es la línea anunciada",
    "last_number_not_on_combination": "el último número anunciado no forma parte de la combinación",
    "claimed_too_late": "reclamada después de cantarse el número siguiente",
    "rights_lost_at_order": "derecho perdido con la orden del Jefe de Mesa",
}
VOID_REASONS = {
    "announcement_error": "error en el anuncio de un número",
    "equipment_breakdown": "avería del material o instalaciones, irreparable en tiempo prudencial",
    "reglamento_art36_other": "otro caso del artículo 36 del Reglamento",
}
CHECKS = {
    "agreed": "confirmada por la cámara",
    "witnessed": "confirmada por la cámara con el canto como segundo testigo",
    "confirmed": "confirmada por el Jefe de Mesa",
    "corrected": "corregida por el Jefe de Mesa",
}
NO_READING = {
    "no_ball": "sin bola",
    "unsure": "lectura dudosa",
    "unreadable": "ilegible",
    "no_picture": "la cámara no dio imagen",
    "set_disagrees": "contradicha por las bolas del juego en su prueba",
}
CLOSE_REASONS = {
    "closed": "",
    "equipment_check_failed": " (material defectuoso)",
    "balls_not_loaded": " (sin llegar a cargar las bolas: {note})",
}
REQUEST_KINDS = {"information": "petición de información", "complaint": "queja"}
ORDERS = {"resume": "continuar la partida", "finish": "dar por finalizada la partida"}
MACHINE_KINDS = {"drum": "de bombo", "pneumatic": "neumático"}


def euros(value: str | Decimal | None, currency: str = "EUR") -> str:
    """Spanish money format: 1.234,50 €."""
    if value is None:
        return "—"
    amount = Decimal(value).quantize(Decimal("0.01"))
    whole, _, cents = f"{amount:,.2f}".partition(".")
    symbol = "€" if currency == "EUR" else currency
    return f"{whole.replace(',', '.')},{cents} {symbol}"


def clock(iso: str | None) -> str:
    """A time of the log in UTC to the millisecond, whatever its ISO form (a whole second has
    no fraction)."""
    if iso is None:
        return "—"
    moment = datetime.fromisoformat(iso).astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:23] + " UTC"


def _rounding_left(left: str | None, currency: str) -> str:
    """What rounding the prizes' percentages down left, to its last digit (under a cent)."""
    if left is None or Decimal(left) == 0:
        return ""
    symbol = "€" if currency == "EUR" else currency
    digits = format(Decimal(left).normalize(), "f").replace(".", ",")
    return f" (el redondeo de los porcentajes deja {digits} {symbol})"


def _homologation(reference: str | None) -> str:
    """A ball set's homologation reference (S79 L1194), as the acta names it with the set."""
    return f"homologación {reference}" if reference else "sin referencia de homologación"


def _session_lines(session: Json) -> list[str]:
    """The head of the session: its rules, machine, opening and equipment check."""
    profile, machine = session["profile"], session["machine"]
    lines = [
        f"Reglamento aplicado: {profile['title']} (perfil {profile['id']}); premios: línea "
        f"{profile['line_prize_percent']} %, bingo {profile['bingo_prize_percent']} % "
        "del valor facial de los cartones vendidos",
        f"Aparato extractor: {machine['id']} ({MACHINE_KINDS[machine['kind']]}), modelo "
        + (
            f"con homologación {machine['homologation']}"
            if machine.get("homologation")
            else "sin referencia de homologación"
        ),
        f"Apertura: {clock(session['opened_at'])}",
    ]
    floor = session.get("call_witness_floor")
    if floor is not None:
        lines.append(
            "Cámara: confirma también el número cantado cuando su mejor lectura es ese número, "
            f"con una confianza de {str(floor).replace('.', ',')} o más, y las bolas del juego "
            "en su prueba lo señalan también (el canto como segundo testigo)"
        )
    for check in session["equipment_checks"]:
        verdict = "correcto" if check["ok"] else "DEFECTUOSO"
        note = f" — {check['notes']}" if check["notes"] else ""
        lines.append(f"Comprobación del material ({clock(check['at'])}): {verdict}{note}")
    return lines


def _session_entries(session: Json, currency: str) -> list[tuple[int, str]]:
    """The session's own entries (ball sets changed, tried before the camera and loaded,
    series registered, the last game announced, earlier sessions' prizes paid and voided games'
    cards refunded), each with its place in the log, in the log's order: `render_text` prints
    each where it falls among the games."""
    entries = []
    for change in session["ball_set_changes"]:
        previous = (
            f"{change['previous']} ({_homologation(change['previous_homologation'])}; "
            if change["previous"]
            else "— ("
        )
        entries.append(
            (
                change["seq"],
                f"Cambio de juego de bolas ({clock(change['at'])}): "
                f"{previous}{change['previous_games']} partidas) → {change['ball_set_id']} "
                f"({_homologation(change['homologation'])}; {change['games']} partidas); "
                f"motivo: {change['reason']}",
            )
        )
    for trial in session["camera_commissionings"]:
        entries.append((trial["seq"], _commissioning_line(trial)))
    for load in session["balls_loaded"]:
        entries.append(
            (
                load["seq"],
                f"Introducción de las bolas ({clock(load['at'])}): juego {load['ball_set_id']} "
                f"({_homologation(load['homologation'])}), {load['games']} partidas jugadas",
            )
        )
    for series in session["series_registered"]:
        entries.append(
            (
                series["seq"],
                f"Serie registrada {series['series_id']}: {series['size']} cartones, valor "
                f"facial {euros(series['face_value'])}"
                + (f", compromiso {series['commitment'][:16]}…" if series["commitment"] else ""),
            )
        )
    if session["last_game_announced_at"]:
        entries.append(
            (
                session["last_game_announced_seq"],
                f"Anuncio de la última partida: {clock(session['last_game_announced_at'])}",
            )
        )
    for paid in session.get("prizes_paid_for_earlier_sessions", ()):
        entries.append(
            (
                paid["seq"],
                f"Pago de un premio de la sesión {paid['game_session_id']} "
                f"({clock(paid['at'])}, {paid['actor']}): partida {paid['game_id']}, "
                f"reclamación {paid['claim_id']}, {euros(paid['amount'], currency)}",
            )
        )
    for paid in session.get("refunds_paid_for_earlier_sessions", ()):
        entries.append(
            (
                paid["seq"],
                f"Devolución de cartones de una partida nula de la sesión "
                f"{paid['game_session_id']} ({clock(paid['at'])}, {paid['actor']}): partida "
                f"{paid['game_id']}, serie {paid['series_id']} del nº {paid['first']} al "
                f"{paid['last']} ({_cards(paid['cards'])}), {euros(paid['amount'], currency)}",
            )
        )
    return sorted(entries, key=lambda entry: entry[0])


def _cards(count: int) -> str:
    return "1 cartón" if count == 1 else f"{count} cartones"


def _owed_range(owed: Json, currency: str) -> str:
    """A range of a voided game's cards not refunded yet."""
    return (
        f"serie {owed['series_id']} del nº {owed['first']} al {owed['last']} "
        f"({_cards(owed['cards'])} × {euros(owed['face_value'], currency)}): "
        f"{euros(owed['amount'], currency)}"
    )


def _claim_line(claim: Json) -> str:
    head = (
        f"  {clock(claim['called_at'])} bola {claim['ordinal']}: "
        f"{CLAIM_KINDS[claim['kind']]}, cartón {claim['series_id']} nº {claim['card_number']}"
    )
    if claim["result"] == "valid":
        rows = ", ".join(ROW_NAMES[r] for r in claim["rows"])
        return f"{head} — CORRECTA" + (f" (línea {rows})" if rows else "")
    if claim["result"] == "invalid":
        reason = REASONS.get(claim["reason"], claim["reason"])
        if claim.get("missing"):
            reason += f" (faltan: {', '.join(str(n) for n in claim['missing'])})"
        elif claim.get("completed_at"):
            reason += f" (completa en la bola {claim['completed_at']})"
        return f"{head} — INCORRECTA: {reason}"
    return f"{head} — pendiente de verificación"


def _game_lines(game: Json, currency: str) -> list[str]:
    money = lambda v: euros(v, currency)  # noqa: E731
    title = f"PARTIDA {game['game_id']}" + (" (última de la sesión)" if game["last_game"] else "")
    lines = ["", title, "-" * len(title)]
    announced = clock(game["announced_at"])
    for s in game["series"]:
        lines.append(
            f"Serie anunciada {s['series_id']} ({announced}): {s['size']} cartones, valor facial "
            f"{money(s['face_value'])}, primer cartón disponible nº {s['first_available']}"
        )
    for sale in game["sales"]:
        if sale.get("buyer"):  # an auxiliary terminal's purchase (Basque profile)
            lines.append(
                f"Venta en terminal auxiliar ({clock(sale['at'])}, {sale['actor']}): serie "
                f"{sale['series_id']} del nº {sale['first']} al {sale['last']} "
                f"({sale['count']} cartones × {money(sale['face_value'])}); "
                f"comprador «{sale['buyer']}»"
            )
    for sale in game.get("sold_ranges", []):
        lines.append(
            f"Vendidos serie {sale['series_id']}: del nº {sale['first']} al {sale['last']} "
            f"({sale['count']} cartones × {money(sale['face_value'])})"
        )
    if game.get("sale_closed_at"):
        lines.append(
            f"Cierre de la venta ({clock(game['sale_closed_at'])}): {game['cards_sold']} "
            f"cartones vendidos; recaudación: {money(game['takings'])}"
        )
    else:  # the sale still open, or voided before it closed: what its sales sold so far
        lines.append(
            f"Cartones vendidos: {game['cards_sold']}; recaudación: {money(game['takings'])}"
        )
    if game["announcement"]:
        lines.append(f"Anuncio ({clock(game['prizes_announced_at'])}): «{game['announcement']}»")
        lines.append(
            f"Premio de línea: {money(game['line_prize'])}; "
            f"premio de bingo: {money(game['bingo_prize'])}"
            + _rounding_left(game.get("prize_rounding"), currency)
        )
        if game["paying_row"] is not None:
            lines.append(f"Línea que se paga: {ROW_NAMES[game['paying_row']]}")
    if game["ball_set"]:  # the draw started (S79 L1208: «comienzo de la partida»)
        ball_set = game["ball_set"]
        lines.append(
            f"Comienzo de la partida ({clock(game['draw_started_at'])}): juego de bolas "
            f"{ball_set['ball_set_id']} ({_homologation(ball_set['homologation'])}), partida nº "
            f"{ball_set['games_on_set']} con este juego"
        )
    if game["balls"]:
        lines.append("Orden de salida de las bolas:")
        for ball in game["balls"]:
            lines.append(
                f"  {ball['ordinal']:>2}. {ball['number']:>2}   {clock(ball['at'])}"
                + _camera_text(ball)
            )
    for hold in game["holds"]:
        lines.append(_hold_line(hold, game["status"]))
    if game["claims"]:
        lines.append("Reclamaciones y su comprobación:")
        lines.extend(_claim_line(claim) for claim in game["claims"])
    for window in game["any_more"]:
        order = ORDERS.get(window["order"], "pendiente")
        given = f"{clock(window['order_at'])}, {window['actor']}" if window.get("actor") else "—"
        lines.append(
            f"«¿Alguna línea más? ¿Algún bingo más?» bola {window['ordinal']} "
            f"({clock(window['asked_at'])}); orden: {order} ({given})"
        )
    if game["line_unclaimed"]:
        where = {"to_bingo": "se suma al premio de bingo", "lapses": "no se reparte"}
        lines.append(
            f"Premio de línea no cantado ({money(game['line_unclaimed']['amount'])}): "
            f"{where[game['line_unclaimed']['disposition']]}"
        )
    for prize in game["prizes"]:
        kind = CLAIM_KINDS[prize["kind"]]
        winners = len(prize["winners"])
        lines.append(
            f"Premio de {kind} (bola {prize['ordinal']}): {money(prize['pot'])} entre "
            f"{winners} ganador{'es' if winners > 1 else ''}: {money(prize['share'])} cada uno; "
            f"residuo por redondeo {money(prize['residue'])}"
        )
        for w in prize["winners"]:
            lines.append(
                f"  cartón {w['series_id']} nº {w['card_number']}: {money(prize['share'])}"
            )
    for payment in game["payments"]:
        later = payment.get("session_id", game["session_id"]) != game["session_id"]
        lines.append(
            f"Pago ({clock(payment['at'])}, {payment['actor']}"
            + (f", en la sesión {payment['session_id']}" if later else "")
            + f"): reclamación {payment['claim_id']}, {money(payment['amount'])}"
        )
    if game["void"]:
        void = game["void"]
        lines.append(
            f"PARTIDA NULA ({clock(void['at'])}, {void['actor']}): {VOID_REASONS[void['reason']]} "
            f"— {void['note']}"
        )
        lines.append(
            f"Devolución íntegra del importe de los cartones: {money(void['refund_total'])}"
        )
        for refund in void["refunds"]:
            lines.append(
                f"  serie {refund['series_id']} del nº {refund['first']} al {refund['last']}"
            )
        if void["restitutions"]:  # a heading of their own: they are not refunds
            lines.append("Premios otorgados en la partida:")
        for r in void["restitutions"]:
            state = "pagado, a restituir" if r["paid"] else "no pagado, anulado"
            lines.append(
                f"  premio de la reclamación {r['claim_id']} (cartón {r['series_id']} nº "
                f"{r['card_number']}): {money(r['amount'])}, {state}"
            )
        for paid in void.get("refunds_paid", ()):
            later = paid.get("session_id", game["session_id"]) != game["session_id"]
            lines.append(
                f"Devolución pagada ({clock(paid['at'])}, {paid['actor']}"
                + (f", en la sesión {paid['session_id']}" if later else "")
                + f"): serie {paid['series_id']} del nº {paid['first']} al {paid['last']} "
                f"({_cards(paid['cards'])}), {money(paid['amount'])}"
            )
        if void.get("refunds_owed"):
            lines.append(f"Pendiente de devolver: {money(void['owed_total'])}")
            lines += [f"  {_owed_range(owed, currency)}" for owed in void["refunds_owed"]]
        elif void.get("refunds_paid"):
            lines.append("Devuelto el importe de todos los cartones")
    elif game["status"] == "finished":
        lines.append(f"Partida finalizada: {clock(game['finished_at'])}")
    else:
        lines.append("Partida en curso")
    return lines


def render_text(acta: Json) -> str:
    """The acta in Spanish, ready to print."""
    session = acta["session"]
    scope = acta["scope"]
    heading = (
        f"ACTA DE LA PARTIDA {scope['game']}"
        if scope["game"] is not None
        else f"ACTA DE LA SESIÓN {session['session_id']}"
    )
    lines = [heading, f"Sala: {acta['hall']} — sesión {session['session_id']}", ""]
    lines += _session_lines(session)
    currency = session["profile"]["currency"]
    # each of the session's entries where it falls among the games: before the first game
    # that began after it, or after the last game
    entries = _session_entries(session, currency)
    for index, game in enumerate(session["games"]):
        due = [line for seq, line in entries if seq < game["announced_seq"]]
        entries = [(seq, line) for seq, line in entries if seq >= game["announced_seq"]]
        if due and index > 0:
            lines.append("")  # a paragraph of its own, between two games
        lines += due
        lines += _game_lines(game, currency)
        # made while this game ran (a payment of another game's prize or refund): after the
        # game's lines, and said to be during it, at its own time
        finished = game.get("finished_seq")
        during = [line for seq, line in entries if finished is None or seq < finished]
        entries = [(seq, line) for seq, line in entries if finished is not None and seq >= finished]
        lines += [f"Durante la partida {game['game_id']}: {line}" for line in during]
    if not session["games"]:
        lines += [line for _, line in entries]
    lines.append("")
    if session["games"] and entries:
        lines += [line for _, line in entries]
    lines += _request_lines(session)
    if session["closed_at"] and session.get("unpaid_at_close"):
        lines.append("Premios pendientes de pago al cierre de la sesión:")
        for unpaid in session["unpaid_at_close"]:
            earlier = unpaid.get("session_id", session["session_id"]) != session["session_id"]
            of_session = f" de la sesión {unpaid['session_id']}" if earlier else ""
            lines.append(
                f"  partida {unpaid['game_id']}{of_session}, {CLAIM_KINDS[unpaid['kind']]}, cartón "
                f"{unpaid['series_id']} nº {unpaid['card_number']} (reclamación "
                f"{unpaid['claim_id']}): {euros(unpaid['amount'], currency)}"
            )
    if session["closed_at"] and session.get("refunds_owed_at_close"):
        lines.append("Devoluciones de partidas nulas pendientes al cierre de la sesión:")
        for owed in session["refunds_owed_at_close"]:
            earlier = owed["session_id"] != session["session_id"]
            of_session = f" de la sesión {owed['session_id']}" if earlier else ""
            lines.append(f"  partida {owed['game_id']}{of_session}, {_owed_range(owed, currency)}")
    if session["closed_at"] and session.get("unanswered_at_close"):
        numbers = [
            f"nº {r['request_id']}"
            if r["session_id"] == session["session_id"]
            else f"nº {r['request_id']} (sesión {r['session_id']})"
            for r in session["unanswered_at_close"]
        ]
        lines.append(
            f"Peticiones y quejas sin respuesta al cierre de la sesión: {', '.join(numbers)}"
        )
    if session["closed_at"]:
        reason = CLOSE_REASONS[session["close_reason"]].format(note=session["close_note"])
        lines.append(
            f"Cierre de la sesión: {clock(session['closed_at'])}{reason}{_unwarned(session)}"
        )
    lines.append(chain_line(acta["chain"]))
    return "\n".join(lines) + "\n"


def chain_line(chain: Json) -> str:
    """The verdict of the hash chain, the last line of a record."""
    if chain["ok"]:
        return (
            f"Cadena de hash del registro: VERIFICADA ({chain['events']} eventos; último nº "
            f"{chain['last_seq']}, hash {chain['last_hash']})"
        )
    return f"Cadena de hash del registro: NO VERIFICA — {chain['problem']}"


def _unwarned(session: Json) -> str:
    """A session its rules ask to warn of its last game (S77 L2498-2500) that played games
    and closed from ball loading without the warning: said at the close, for the regulator."""
    if (
        session["close_reason"] == "balls_not_loaded"
        and session["profile"].get("last_game_announcement_required")
        and session["games"]
        and not session["last_game_announced_at"]
    ):
        return "; sin haberse anunciado la última partida, como exige el reglamento"
    return ""


def _request_lines(session: Json) -> list[str]:
    """The players' requests for information and complaints taken down in the session, each
    with its answer (S77 L2427-2432: the Jefe de Mesa «contestará las peticiones de información
    o reclamaciones y consignará todo ello en el acta»), and the answers given in the session
    to earlier sessions' requests."""
    lines = []
    if session.get("player_requests"):
        lines.append("Peticiones de información y quejas de los jugadores:")
        lines += [_request_line(r, session["session_id"]) for r in session["player_requests"]]
    if session.get("answers_for_earlier_sessions"):
        lines.append("Respuestas a peticiones y quejas de sesiones anteriores:")
        for request in session["answers_for_earlier_sessions"]:
            who = f" de «{request['player']}»" if request["player"] else ""
            lines.append(
                f"  nº {request['request_id']}, {REQUEST_KINDS[request['kind']]} de la sesión "
                f"{request['session_id']} ({clock(request['at'])}){who}: «{request['text']}»; "
                f"respuesta ({clock(request['answer_at'])}, {request['answer_actor']}): "
                f"«{request['answer']}»"
            )
    return lines


def _request_line(request: Json, session_id: int) -> str:
    game = f"; partida {request['game_id']}" if request["game_id"] is not None else ""
    who = f" de «{request['player']}»" if request["player"] else ""
    head = (
        f"  nº {request['request_id']}, {REQUEST_KINDS[request['kind']]} "
        f"({clock(request['at'])}, {request['actor']}{game}){who}: «{request['text']}»"
    )
    if request["answer"] is None:
        return f"{head}; sin respuesta"
    later = request["answer_session_id"] != session_id
    when = f"dada tras el cierre, en la sesión {request['answer_session_id']}, " if later else ""
    return (
        f"{head}; respuesta ({when}{clock(request['answer_at'])}, {request['answer_actor']}): "
        f"«{request['answer']}»"
    )


def confidence_text(value: float) -> str:
    """A reading's confidence, cut (never rounded up) to four decimals, or to as many more, up
    to eight, as it takes for a digit other than 9 to show: a reading held at 0.99995 must not
    print as a certain 1,0000."""
    exact = Decimal(repr(float(value)))
    if exact >= 1:
        return "1,0000"
    for decimals in range(4, 9):
        step = Decimal(1).scaleb(-decimals)
        shown = exact.quantize(step, rounding=ROUND_FLOOR)
        if shown < 1 - step:
            break
    return str(shown).replace(".", ",")


def _reading_text(camera: Json, guess_drawn: bool = False) -> str:
    if camera["reason"] == "no_picture":
        return NO_READING["no_picture"]  # nothing was read, no frame kept
    if camera["reading"] is not None:
        seen = f"lee {camera['reading']}"
    else:
        drawn = ", ya extraída" if guess_drawn else ""
        guess = f", quizá {camera['guess']}{drawn}" if camera["guess"] is not None else ""
        seen = f"{NO_READING[camera['reason']]}{guess}"
    confidence = confidence_text(camera["confidence"])
    if camera.get("set_margin") is not None:
        margin = f"{camera['set_margin']:.3f}".replace(".", ",")
        if camera.get("set_ball") is not None:
            confidence += f"; las bolas del juego señalan el {camera['set_ball']}, margen {margin}"
        else:
            confidence += f"; reconocida por las bolas del juego en su prueba, margen {margin}"
    frame = f"; fotograma {camera['frame'][:16]}…" if camera["frame"] else "; sin fotograma"
    return f"{seen} (confianza {confidence}){frame}"


def _camera_text(ball: Json) -> str:
    """The CCTV check of one ball (spec §4): the reading, its confidence, the frame's hash."""
    camera = ball.get("camera")
    if camera is None:
        return "   cámara: sin comprobación"
    return f"   cámara: {_reading_text(camera, ball['guess_drawn'])}; {CHECKS[ball['check']]}"


def _commissioning_line(trial: Json) -> str:
    """A ball set shown to the camera: whether the camera may confirm its calls, and why not;
    or its showings set aside unjudged."""
    if trial.get("discarded"):
        text = (
            f"Prueba del juego de bolas {trial['ball_set_id']} ante la cámara "
            f"({clock(trial['at'])}, {trial['actor']}): DESCARTADA sin juzgar, "
            + (
                "1 bola mostrada"
                if trial["showings"] == 1
                else f"{trial['showings']} bolas mostradas"
            )
        )
        if trial["misread"]:
            text += "; leídas como otro número: " + ", ".join(map(str, trial["misread"]))
        return text
    share = f"{100 * trial['read'] / trial['showings']:.1f}".replace(".", ",")
    text = (
        f"Prueba del juego de bolas {trial['ball_set_id']} ante la cámara "
        f"({clock(trial['at'])}, {trial['actor']}): {trial['showings']} bolas mostradas, "
        f"{trial['read']} leídas ({share} %"
        + (
            f"; {trial['cross_read']} de ellas reconocidas por las otras bolas del juego"
            if trial.get("cross_read")
            else ""
        )
        + f"), {trial['wrong_guesses']} tomadas por otro número"
    )
    if trial.get("cross_wrong"):
        text += f", {trial['cross_wrong']} más parecidas a otra bola del juego"
    if trial["unread"]:
        text += f"; sin leer: {', '.join(str(n) for n in trial['unread'])}"
    if trial["fit"]:
        return text + "; APTO: la cámara confirma las bolas cantadas"
    reasons = []
    if trial["misread"]:
        reasons.append("leídas como otro número: " + ", ".join(map(str, trial["misread"])))
    if trial["near_misses"]:
        near = ", ".join(map(str, trial["near_misses"]))
        reasons.append(f"tomadas por otro número casi con certeza: {near}")
    if not reasons:
        reasons.append("la cámara lee demasiado pocas bolas, o toma demasiadas por otras")
    return f"{text}; NO APTO ({'; '.join(reasons)}): el Jefe de Mesa confirma cada bola"


def _hold_line(hold: Json, game_status: str) -> str:
    cause = (
        "; juego de bolas no apto para la cámara"
        if hold.get("cause") == "uncommissioned_set"
        else ""
    )
    text = (
        f"Bola {hold['ordinal']} retenida ({clock(hold['held_at'])}): cantada {hold['called']}, "
        f"cámara: {_reading_text(hold['camera'], hold.get('guess_drawn', False))}{cause}"
    )
    if hold["verdict"] is None:
        if game_status == "finished":  # a bingo claimed before it was announced
            return text + "; no cantada: la partida terminó antes"
        if game_status == "voided":
            return text + "; no cantada: la partida se anuló"
        return text + "; pendiente de resolución"
    what = "confirmada" if hold["verdict"] == "confirmed" else f"corregida a {hold['number']}"
    return f"{text}; {what} por {hold['resolved_by']} ({clock(hold['resolved_at'])})"
