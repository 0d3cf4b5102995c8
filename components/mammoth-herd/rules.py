"""The Mammoth Herd's own rules: what the generic checks cannot express."""

from pnpkit.checks.rules import rule


@rule("herd-area-dice")
def herd_area_dice(ctx):
    """SAM-R04: the herd only stands on an area whose capacity does not exceed the dice in the game,
    so everyone on the bonus tile can roll one die per person."""
    dice = ctx.pack.data["dice_in_game"]
    areas = ctx.pack.data["areas"]
    for tile in ctx.pack.items("bonus-tiles"):
        resource = tile.fields["resource"]
        capacity = areas.get(resource, {}).get("capacity")
        where = tile.field_where["resource"]
        if capacity is None:
            yield (
                f"tile '{tile.id}' sends the herd to the "
                f"{areas.get(resource, {}).get('area', resource)}, which has no limit on people; "
                f"the game has only {dice} dice",
                where,
            )
        elif capacity > dice:
            yield (
                f"tile '{tile.id}' sends the herd to an area for {capacity} people; the game has "
                f"only {dice} dice",
                where,
            )
