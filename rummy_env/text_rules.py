"""Short statements of the five games' rules for the text protocol (:mod:`rummy_env.text_protocol`),
written from ``docs/rules/<game>.md`` under the default options; the rule ids there are the
authority. Each is a few hundred words: what a language model needs to play, not every corner."""

CARDS = ("Cards are written rank then suit: ranks A 2 3 4 5 6 7 8 9 T J Q K (T is ten), suits C D H S "
         "(clubs, diamonds, hearts, spades); 7H is the seven of hearts.")

RULES = {
    "rummy": f"""Game: Rummy (basic "Rum"), 2 to 6 players, one 52-card pack without jokers.
{CARDS}
Deal (RM-3, RM-4): 10 cards each with 2 players (7 with 3-4, 6 with 5-6); the next card starts the
discard pile face up; the rest is the face-down stock.
A turn (RM-6 to RM-9): first draw one card, either the top of the stock (draw stock) or the top of
the discard pile (take discard). Then lay down any number of melds from your hand and lay off any
number of single cards on melds already on the table (yours or anyone's), and end the turn by
discarding one card. A card taken from the discard pile may not be discarded in the same turn
(RM-17). There is no passing.
Melds (RM-10 to RM-13): a set is 3 or 4 cards of one rank; a run is 3 or more cards of one suit in
sequence. Aces are low only: A 2 3 is a run, Q K A is not. Melds on the table are numbered @0, @1, ...
in the order they were laid and are never rearranged; "layoff 7H @2" adds 7H to meld @2.
Going out (RM-19): the player whose last card leaves the hand (by a meld, a lay-off or the discard)
wins the round and scores the card values left in all the other hands: ace 1, 2 to 10 face value,
J Q K 10 each (RM-21). Going out in one turn without having melded or laid off before in the round
is "rummy" and doubles that score (RM-23).
Empty stock (RM-24): drawing from an empty stock turns the discard pile over into a new stock.
The match (RM-27, RM-28): round scores add up; the match ends after the round in which a player
reaches the target score (150 by default) and the highest total wins.
Strategy hints: keep cards that are close to melds, discard high cards that do not fit, watch what
the others take from the discard pile.""",

    "tongits": f"""Game: Tongits (Tong-its), 3 players, one 52-card deck without jokers.
{CARDS}
Deal (TG-3): the dealer gets 13 cards, the others 12; the rest is the stock. The dealer's first
turn has no draw (TG-5). Turns pass to the left.
A turn (TG-6 to TG-8): draw the top stock card (draw stock) or take the top discard (take discard),
or call a draw instead (call draw, below). Taking the discard is allowed only if it makes a meld
with at least two of your cards, and you must lay that meld at once (TG-7). Then lay any number of
melds, secrets and lay-offs, and end the turn with one discard.
Melds (TG-10 to TG-13): a set is 3 or 4 cards of one rank; a run is 3 or more cards of one suit in
sequence, aces low only (A 2 3 yes, Q K A no). "secret" lays four of a kind face down. Melds are
numbered @0, @1, ...; "layoff 7H @2" adds 7H to meld @2. When someone lays off on your meld you are
blocked from calling a draw on your next turn (TG-16).
How a hand ends: Tongits (TG-17): empty your hand during your turn and you win the hand. Draw
(TG-18 to TG-23): a player with a face-up meld who is not blocked may call draw instead of drawing;
each other player then challenges or folds. Nobody challenges: the caller wins. Otherwise the
caller and the challengers compare hand points and the lowest wins (ties go against the caller,
who is burned if it loses). Stock runs out (TG-24, TG-25): after the last stock card's turn the
lowest hand points win. Hand points (TG-30): every card still held, ace 1, 2 to 10 face value,
J Q K 10; melded cards never count.
Chips (TG-31 to TG-35): the winner gets 3 chips for Tongits or a won challenge, otherwise 1, plus 1
per ace in its hand and melds and 3 per secret or four of a kind; a burned caller loses 1. A match
is 3 hands; the most chips wins.
Strategy hints: meld early to be allowed to call draw, keep hand points low, and challenge a draw
when your hand points are lower than the caller's are likely to be.""",

    "i_doubt_it": f"""Game: I Doubt It (Cheat, Bluff, BS), 3 to 5 players with one 52-card deck; only ranks
matter, never suits (DI-5). {CARDS}
All cards are dealt (DI-2). Goal: be the first to get rid of all your cards (DI-25).
A play (DI-6 to DI-11): on your turn put 1 to 4 cards face down on the pile. The play is announced
as that number of cards of the rank that is due: the first play claims aces, and each later play
claims the rank below the previous claim (aces, kings, queens, ... twos, then aces again) (DI-14,
DI-15). The number is always true; the cards may be anything, so you may lie about the rank. You
choose the real cards by rank: "play 7 7 K" puts down two sevens and a king, claimed as three
cards of the rank due. Passing is not allowed on your own turn (DI-7).
Doubting (DI-17 to DI-21): after each play the other players are asked one at a time, each
answering doubt or pass. The first doubt turns the played cards face up. If they are all of the
claimed rank the doubter takes the whole pile into its hand; if any is not, the player who lied
takes the whole pile. If nobody doubts, the cards stay hidden in the pile.
Going out (DI-22 to DI-25): a play that empties a hand is always doubted. If it was true (or not
doubted) that player wins and the game ends; if it was a lie, that player takes the pile and the
game goes on.
Strategy hints: play true cards when you hold the rank due; lie with cards you will not need soon;
doubt when the claim is unlikely given your own hand (for example you hold three of the four
cards of that rank) or when a player is about to go out; passing is safer otherwise, because a
wrong doubt gives you the whole pile.""",

    "ginny_o": f"""Game: Ginny-O, a crossword game with playing-card tiles, 2 to 4 players on a 15x15 board.
{CARDS} JK is a joker. Squares are named by column A-O and row 1-15 (H8 is the centre).
Tiles (GO-4 to GO-6): one set of 52 cards plus 2 jokers for 2 players. Ranks A K Q ... 2 A: an ace
is high or low. Values: 2-9 face value, T J Q K 10, joker 0, ace 1 in a run and 15 in a set.
Each player has a rack of 7 tiles; the others lie face down in the box.
A turn (GO-10 to GO-14): either draw a tile (draw) and then make one play, or after drawing put one
tile back (return), ending the turn; or exchange some rack tiles (exchange ..., then commit). A
play puts tiles one at a time (place 7H at H8) on empty squares of one row or one column, in
reading order, then commit; the rack is refilled to 7. With the box empty a turn is a play or a
pass.
Melds (GO-15 to GO-21): every line of 2 or more touching tiles must be a meld: a set is 3 or 4
tiles of one rank, all of different suits; a run is 3 or more tiles of one suit in rank order,
rising or falling along the line. A joker stands for the card declared when it is placed
(place JK=6H at G8) for ever.
Where (GO-22 to GO-26): the first play covers H8 with at least 3 tiles. Later plays must touch the
tiles on the board (extending or crossing a meld), or start a new group of at least 3 tiles on an
uncovered red start square without touching the board. Groups from different start squares may
never join.
Scoring (GO-29 to GO-33): each line a play forms or extends scores the values of the tiles placed
in it; yellow (y) doubles and green (g) triples a tile placed on it, red (r) doubles and blue (b)
triples the whole line; only newly placed tiles count.
End (GO-36 to GO-38): when nobody can play any more, each player subtracts the value of its rack
(ace 15); the highest score wins.
Strategy hints: prefer long plays over premium squares; keep aces for sets.""",

    "contract_rummy": f"""Game: Contract Rummy, 3 to 8 players, a 7-deal match; 3-4 players use one 52-card pack plus
one joker (JK). {CARDS}
Contracts (CR-7, CR-8): deal 1 needs two sets, deal 2 a set and a run, deal 3 two runs, deal 4
three sets, deal 5 two sets and a run, deal 6 a set and two runs, deal 7 three runs all at once
(hands: 10 cards in deals 1-4, 12 in deals 5-7). Going down means laying exactly the contract's
melds, meld by meld, in one turn.
A turn (CR-10, CR-11): draw the top stock card (draw stock) or the top card of the pile
(take discard); then, if you are not down, you may go down; once down you may lay off single cards
on any meld (layoff 7H @2) and swap a natural card for a joker in a run (swap 9H @1, then lay the
freed joker off at once); end with one discard. A card taken from the pile may not be discarded in
the same turn (CR-26).
Melds (CR-13, CR-14): a set is 3 or 4 cards of one rank, all of different suits; a run is 3 or more
cards of one suit in sequence; an ace is high or low, never both. A joker is wild and is laid
naming the card it stands for (JK=9H) (CR-20). Melds are numbered @0, @1, ... in the order laid.
Going out (CR-29): a player that is down and empties its hand ends the deal.
Penalty points (CR-30): every other player scores its hand: 2-9 face value, T J Q K 10, A 15,
JK 15. After 7 deals the lowest total wins (CR-31).
Strategy hints: collect cards for the current contract, discard high cards you cannot use, go down
as soon as you can and then shed cards by laying off.""",
}
"""Rules summary of each game by its key (:data:`rummy_env.registry.GAMES`)."""
