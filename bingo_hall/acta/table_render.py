"""A table's session record as Spanish text, for printing and for the inspector."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from bingo_hall.acta.render import chain_line, clock, euros

Json = dict[str, Any]

GAMES = {
    "french-roulette": "Ruleta francesa",
    "american-roulette": "Ruleta americana de un cero",
    "american-roulette-00": "Ruleta americana de doble cero",
    "boule": "Bola (boule)",
    "wheel-of-fortune": "Rueda de la fortuna",
}
ROLES = {
    "table_head": "jefe de mesa",
    "deputy_head": "subjefe de mesa",
    "inspector": "inspector de mesa",
    "croupier": "croupier",
}
VOID_REASONS = {
    "object_in_wheel": "caída de una ficha u otro objeto en el cilindro",
    "ball_left_wheel": "la bola salió del cilindro",
    "defective_launch": "lanzamiento defectuoso",
    "ball_did_not_drop": "la bola no llegó a caer en ningún número",
    "pointer_on_pin": "el indicador quedó sobre un pivote",
    "obstruction": "obstrucción de la rueda",
    "too_few_revolutions": "menos de cuatro vueltas tras el segundo impulso",
}
DIRECTIONS = {
    "clockwise": "en el sentido de las agujas del reloj",
    "anticlockwise": "en sentido contrario al de las agujas del reloj",
}
BET_TYPES = {
    "straight": "pleno",
    "split": "caballo",
    "zero_split": "caballo con el cero",
    "street": "transversal",
    "trio": "trío",
    "corner": "cuadro",
    "first_four": "cuatro primeros",
    "five_number": "cinco números",
    "sixline": "seisena",
    "column": "columna",
    "dozen": "docena",
    "two_columns": "dos columnas",
    "two_dozens": "dos docenas",
    "red": "rojo",
    "black": "negro",
    "even": "par",
    "odd": "impar",
    "low": "falta",
    "high": "pasa",
    "number": "número",
    "segment": "segmento",
    "neighbours": "vecinos",
    "voisins": "vecinos del cero",
    "tiers": "tercio",
    "orphelins": "huérfanos",
}
STATUSES = {
    "won": "ganadora",
    "lost": "perdedora",
    "half_back": "se devuelve la mitad",
    "returned": "sale de prisión",
    "void": "tirada nula",
}
ZERO_CHOICES = {"half": "retirar la mitad", "prison": "dejarla en prisión"}
FORCED = {"last_coup": " (última jugada)", "below_minimum": " (por debajo del mínimo)"}
COLOUR_MOVES = {
    "issued": "entrega",
    "returned": "cambio a fichas de valor",
    "returned_and_left": "cambio a fichas de valor; el jugador deja el color",
}


def _limits(choice: Json, currency: str) -> str:
    text = f"mínimo {euros(choice['minimum'], currency)}"
    if choice.get("tier") is not None:
        text += f", máximo a pleno {choice['tier']} veces el mínimo"
    if choice.get("even_tier") is not None:
        text += f", suertes sencillas {choice['even_tier']} veces"
    if choice.get("maximum") is not None:
        text += f", máximo {euros(choice['maximum'], currency)}"
    if choice.get("layout_minimum", 1) != 1:
        text += f", este paño a {choice['layout_minimum']} veces el mínimo"
    if choice.get("even_minimum", 1) != 1:
        text += f", mínimo en suertes sencillas {choice['even_minimum']} veces"
    return text


def _who(login: str | None) -> str:
    return login or "—"


def _session_lines(session: Json) -> list[str]:
    currency = session["currency"]
    float_ = session["float"]
    lines = [
        f"Juego: {GAMES.get(session['game'], session['game'])}, perfil {session['profile']}; "
        + ("dos paños" if session["layouts"] == 2 else "un paño"),
        f"Límites al abrir: {_limits(session['limits'], currency)}"
        + (
            f"; su juego, exento de tener una mesa al mínimo autorizado (autorización "
            f"{session['minimum_exemption']})"
            if session["minimum_exemption"]
            else ""
        ),
        f"Apertura: {clock(session['opened_at'])}, por {_who(session['opened_by'])}"
        + (
            f"; jefe de mesa {session['head_at_opening']}"
            if session["head_at_opening"]
            else "; abierta por la dirección, sin jefe de mesa"
        ),
        *_seal_at_opening(session["seal_at_opening"]),
        "Anticipo (caja de la mesa): "
        + (
            euros(float_["issued"], currency)
            if float_["issued"] is not None
            else "no se lleva en este sistema"
        ),
    ]
    for top_up in float_["top_ups"]:
        why = "con el cambio de límites" if top_up["with"] == "limits" else "por orden"
        after = (
            f"; queda en {euros(top_up['float_after'], currency)}"
            if top_up["float_after"] is not None
            else ""
        )
        lines.append(
            f"  Reposición del anticipo ({clock(top_up['at'])}): "
            f"{euros(top_up['amount'], currency)}, {why} de {top_up['ordered_by']}{after}"
        )
    return lines


def _seal_at_opening(seal: Json) -> list[str]:
    """The cylinder's seal checked at the opening against the last close's (none to check at
    a table's first session)."""
    if seal["expected"] is None:
        return []
    if seal["found"] == seal["expected"]:
        return [f"Precinto del cilindro al abrir: {seal['found']}, el del último cierre"]
    return [
        f"Precinto del cilindro al abrir: {seal['found']}; NO COINCIDE con el del último "
        f"cierre, {seal['expected']}. Nota: {seal['note']}"
    ]


def _seal_check_line(check: Json) -> str:
    found = f"encontrado {check['found']} ({clock(check['at'])}, por {_who(check['by'])})"
    if check["opened_session"] is None:
        return f"  Al abrir de nuevo: {found}; NO COINCIDE: apertura rechazada"
    opened = f"se abre la sesión {check['opened_session']}"
    if check["matches"]:
        return f"  Al abrir de nuevo: {found}; coincide, {opened}"
    return f"  Al abrir de nuevo: {found}; NO COINCIDE, {opened} con la nota: {check['note']}"


def _staff_lines(session: Json) -> list[str]:
    lines = []
    for entry in session["staff"]:
        at = clock(entry["at"])
        if entry["what"] == "rotation_set":
            lines.append(
                f"  {at}: turno de lanzamiento fijado por {entry['by']}: "
                + ", ".join(entry["croupiers"])
            )
        elif entry["what"] == "head_taken":
            relieves = f", releva a {entry['relieves']}" if entry["relieves"] else ""
            lines.append(
                f"  {at}: {entry['who']} toma la mesa como {ROLES[entry['role']]}{relieves}"
            )
        else:
            lines.append(
                f"  {at}: {entry['who']} dirige la mesa al reabrirse ({ROLES[entry['role']]})"
            )
    return ["Personal:", *lines] if lines else []


def _change_line(change: Json, currency: str) -> str:
    at = clock(change["at"])
    asked = _limits(change["limits"], currency)
    before = _limits(change["previous"], currency) if change["previous"] else "—"
    head = f"  {at}: {change['requested_by']} pide {asked} (antes: {before})"
    if change["status"] == "refused":
        return (
            f"{head}: DENEGADO — el perfil no permite cambiar los límites durante la sesión "
            "(N79 L210-218; AST L258-279)"
        )
    top_up = Decimal(change["float_top_up"])
    extra = f"; reposición del anticipo {euros(top_up, currency)}" if top_up else ""
    if change["authorisation"]:
        extra += f"; autorización {change['authorisation']}"
    if change["status"] == "announced":
        return (
            f"{head}: anunciado, tras las últimas {change['old_limit_coups']} bolas con los "
            f"límites anteriores; aún no aplicado{extra}"
        )
    if change["old_limit_coups"] is not None:
        return (
            f"{head}: anunciado; aplicado desde la jugada {change['applies_from_coup']} "
            f"({clock(change['applied_at'])}), tras las últimas {change['old_limit_coups']} "
            f"bolas con los límites anteriores{extra}"
        )
    return f"{head}: aplicado{extra}"


def _closure_lines(session: Json, currency: str) -> list[str]:
    lines = []
    for closure in session["closures"]:
        locked = closure["float_locked"]
        text = (
            f"Cierre temporal: {clock(closure['suspended_at'])}, llave del anticipo en poder de "
            f"{closure['key_held_by']}"
            + (f" (anticipo {euros(locked, currency)} bajo llave)" if locked is not None else "")
        )
        if closure["closes_at"]:  # the casino's closing then, in the hall's local time
            text += f"; el casino cierra a las {closure['closes_at'][11:16]} (hora local)"
        if closure["resumed_at"]:
            text += (
                f"; reapertura {clock(closure['resumed_at'])} por {closure['unlocked_by']}, "
                f"croupier {closure['croupier']}, {ROLES[closure['head_role']]} {closure['head']}"
            )
        lines.append(text)
    return lines


def _bet_line(bet: Json, currency: str) -> str:
    numbers = "-".join(bet["numbers"])
    kind = BET_TYPES.get(bet["type"], bet["type"])
    owner = []
    if bet.get("player"):
        owner.append(f"jugador {bet['player']}")
    if bet.get("colour"):
        owner.append(f"color {bet['colour']}")
    whose = f" ({', '.join(owner)})" if owner else ""
    if bet["carried_in"]:
        entered = "en prisión desde una jugada anterior"
    else:
        entered = f"anotada {clock(bet['placed_at'])} por {_who(bet['placed_by'])}"
    text = (
        f"    {bet['id']}: {kind}{' ' + numbers if numbers else ''}, "
        f"{euros(bet['amount'], currency)}{whose}, {entered}"
    )
    if bet["withdrawn_at"]:
        return f"{text}; retirada {clock(bet['withdrawn_at'])} por {_who(bet['withdrawn_by'])}"
    if bet["status"] is None:
        return text
    forced = FORCED.get(bet.get("forced") or "", "")
    if bet["status"] == "prison":
        return f"{text}; en prisión{forced}, por {euros(bet['carried'], currency)}"
    text += f"; {STATUSES[bet['status']]}{forced}"
    if Decimal(bet["returns"]):
        text += f", devuelve {euros(bet['returns'], currency)}"
    return text


def _moment_line(step: Json) -> str:
    """One step of a coup: a spin, «no va más», a void, a late bet, the outcome, a zero choice."""
    at, what = clock(step["at"]), step["what"]
    if what == "spin":
        way = f", {DIRECTIONS[step['direction']]}" if step["direction"] else ""
        return f"  {at}: {step['spun_by']} {'relanza' if step['relaunch'] else 'lanza'}{way}"
    if what == "no_more_bets":
        return f"  {at}: «no va más» ({_who(step['by'])})"
    if what == "void":
        who = step["declared_by"] + (f" ({ROLES[step['role']]})" if step["role"] else "")
        absent = ", en ausencia del jefe de mesa y del inspector" if step["no_head_present"] else ""
        turns = f", {step['revolutions']} vueltas" if step["revolutions"] is not None else ""
        back = f"; la bola vuelve al {step['previous_outcome']}" if step["previous_outcome"] else ""
        then = "se abren de nuevo las apuestas" if step["bets_open"] else "se relanza la bola"
        return (
            f"  {at}: TIRADA NULA — {VOID_REASONS[step['reason']]}{turns}; declarada por "
            f"{who}{absent}{back}; {then}"
        )
    if what == "late_bet_returned":
        return (
            f"  {at}: apuesta {step['bet']} después de «no va más»: devuelta al jugador "
            f"({_who(step['by'])})"
        )
    if what == "outcome":
        turns = f", {step['revolutions']} vueltas" if step["revolutions"] is not None else ""
        return f"  {at}: resultado {step['outcome']}{turns} ({_who(step['by'])})"
    return (
        f"  {at}: apuesta {step['bet']}: {ZERO_CHOICES[step['choice']]}, según "
        f"{step['declared_by']}"
    )


def _coup_lines(coup: Json, currency: str) -> list[str]:
    last = " (última jugada)" if coup["last_coup"] else ""
    lines = [
        f"Jugada {coup['coup']}{last}: «hagan juego» {clock(coup['bets_opened_at'])} por "
        f"{_who(coup['bets_opened_by'])}",
        *(_moment_line(step) for step in coup["timeline"]),
    ]
    if coup["bets"]:
        lines.append("  Apuestas:")
        lines += [_bet_line(bet, currency) for bet in coup["bets"]]
    settlement = coup["settlement"]
    if settlement is not None:
        totals = settlement["totals"]
        lines.append(
            f"  Liquidación ({clock(coup['settled_at'])}): apostado "
            f"{euros(totals['staked'], currency)}, devuelto {euros(totals['returns'], currency)}, "
            f"en prisión {euros(totals['carried'], currency)}, resultado de la banca "
            f"{euros(totals['bank_result'], currency)}"
        )
        if settlement["collected"]:
            collected = ", ".join(settlement["collected"])
            lines.append(f"  Retiradas primero las perdedoras: {collected}")
    if coup["paid_at"]:
        order = "; ".join(
            f"{p['bet']} {BET_TYPES.get(p['kind'], p['kind'])} {euros(p['amount'], currency)}"
            for p in coup["payments"]
        )
        lines.append(
            f"  Pago ({clock(coup['paid_at'])}), en este orden: {order or 'ningún premio'}"
        )
        if coup["carried"]:
            lines.append(f"  Siguen en prisión: {', '.join(coup['carried'])}")
    return lines


def _exchange_lines(session: Json, currency: str) -> list[str]:
    lines = []
    for exchange in session["exchanges"]:
        what = (
            "billetes por fichas de valor"
            if exchange["kind"] == "banknotes"
            else "fichas de valor por otras"
        )
        player = f", jugador {exchange['player']}" if exchange["player"] else ""
        box = (
            f"; caja de la mesa: {euros(exchange['cash_box'], currency)}"
            if exchange["kind"] == "banknotes"
            else ""
        )
        lines.append(
            f"  {clock(exchange['at'])}: {what}, {euros(exchange['amount'], currency)}{player}; "
            f"croupier {exchange['croupier']}, bajo el control de {exchange['controlled_by']}"
            f"{box}"
        )
    return ["Cambios en la mesa:", *lines] if lines else []


def _colour_lines(session: Json, currency: str) -> list[str]:
    lines = []
    for move in session["colour_chips"]:
        lines.append(
            f"  {clock(move['at'])}: {COLOUR_MOVES[move['what']]}, color {move['colour']}, "
            f"jugador {move['player']}: {move['chips']} fichas de "
            f"{euros(move['unit_value'], currency)} = {euros(move['value'], currency)}"
        )
    for change in session["value_chip_bets"]:
        state = "se admiten de nuevo" if change["allowed"] else "se suspenden"
        lines.append(
            f"  {clock(change['at'])}: apuestas con fichas de valor: {state}, por "
            f"{change['set_by']}"
        )
    return ["Fichas de color y de valor:", *lines] if lines else []


def _closing_lines(session: Json, currency: str) -> list[str]:
    totals = session["totals"]
    lines = [
        f"Jugadas liquidadas: {totals['coups_settled']}; apostado "
        f"{euros(totals['staked'], currency)}, devuelto a los jugadores "
        f"{euros(totals['returns'], currency)}, resultado de la banca "
        f"{euros(totals['bank_result'], currency)}"
    ]
    last = session["last_coups"]
    if last is not None:
        what = "la última jugada" if last["coups"] == 1 else f"las últimas {last['coups']} bolas"
        lines.append(f"Anuncio de {what}: {clock(last['at'])}, por {_who(last['by'])}")
    if session["closed_at"] is None:
        lines.append("La mesa sigue abierta.")
        return lines
    spins = ", ".join(f"{who} {count}" for who, count in session["spins_per_croupier"].items())
    while_closed = " (estaba cerrada temporalmente)" if session["closed_while_suspended"] else ""
    lines += [
        f"Cierre: {clock(session['closed_at'])}, por {_who(session['closed_by'])}{while_closed}; "
        f"{session['coups_played']} jugadas; lanzamientos por croupier: {spins or 'ninguno'}",
        f"Cilindro cerrado con llave o precinto: {session['seal']}",
        *(_seal_check_line(check) for check in session["seal_checks"]),
    ]
    lines.append(
        f"Caja de la mesa (billetes cambiados en la sesión): "
        f"{euros(session['cash_box_at_close'], currency)}"
    )
    if session["float"]["at_close"] is not None:
        lines.append(
            f"Anticipo entregado y repuesto, que vuelve a caja: "
            f"{euros(session['float']['at_close'], currency)}"
        )
    lines += _count_lines(session["count"], session["cash_box_at_close"], currency)
    return lines


def _count_lines(count: Json, cash_box: str, currency: str) -> list[str]:
    """The count at the close («arqueo»): the float counted against what it should hold."""
    lines = []
    if count["float_expected"] is not None:
        difference = Decimal(count["difference"])
        verdict = (
            "cuadra"
            if difference == 0
            else f"DIFERENCIA {euros(difference, currency)} "
            + ("(sobra)" if difference > 0 else "(falta)")
        )
        lines.append(
            f"Arqueo del anticipo: contado {euros(count['float_count'], currency)}; esperado "
            f"{euros(count['float_expected'], currency)} (anticipo y reposiciones, más el "
            f"resultado de la banca {euros(count['bank_result'], currency)}, menos las fichas "
            f"entregadas por billetes {euros(cash_box, currency)}): {verdict}"
        )
    elif count["float_count"] is not None:
        lines.append(f"Anticipo contado: {euros(count['float_count'], currency)}")
    if count["tips"] is not None:
        lines.append(f"Propinas contadas: {euros(count['tips'], currency)}")
    return lines


def render_table_record(record: Json) -> str:
    """The record of a table's session in Spanish, ready to print."""
    session = record["session"]
    currency = session["currency"]
    lines = [
        f"REGISTRO DE LA MESA {record['table']} — SESIÓN {session['session_id']}",
        f"Sala: {record['hall']}",
        "",
        *_session_lines(session),
        *_staff_lines(session),
    ]
    if session["limit_changes"]:
        lines.append("Cambios de límites:")
        lines += [_change_line(change, currency) for change in session["limit_changes"]]
    lines += _closure_lines(session, currency)
    lines += _exchange_lines(session, currency)
    lines += _colour_lines(session, currency)
    for coup in session["coups"]:
        lines.append("")
        lines += _coup_lines(coup, currency)
    lines.append("")
    lines += _closing_lines(session, currency)
    lines.append(chain_line(record["chain"]))
    return "\n".join(lines) + "\n"
