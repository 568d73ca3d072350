package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/text/language"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/paper"
	"vegas-desk/internal/platform"
)

// The command line speaks French where the locale is French, English
// elsewhere. Its messages are written in English and looked up in the
// French catalogue (help_fr.go, messages_fr.go), whose keys are the English format
// strings: help texts by text, the lines and errors (tr, printf, badInput,
// failf) formatted by fmt, with
// dates, amounts and plurals written here for the language. A message
// without a translation stays English; TestFrenchCatalogueComplete finds
// one. The ledger's own refusals, errors and words are translated here, at
// the edge, by what they are (errors.Is, errors.As, a verdict, a state, an
// import flag's kind), not by rewriting the ledger's messages. Nothing of
// the French is built before a French process asks for it (frenchMessages,
// lazyRegexp): an English lookup pays for no catalogue.

// cliLanguage is the command line's language: the locale's (LC_ALL, else
// LC_MESSAGES, else LANG, as POSIX orders them), else the user's Windows
// language (platform.Language), else English.
func cliLanguage() language.Tag {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if l := os.Getenv(v); l != "" {
			return tagOf(l)
		}
	}
	if platform.Language() == "fr" {
		return language.French
	}
	return language.English
}

// tagOf is French for a French locale name (fr_FR.UTF-8, fr-BE, fr).
func tagOf(locale string) language.Tag {
	l := strings.ToLower(locale)
	if l == "fr" || strings.HasPrefix(l, "fr_") || strings.HasPrefix(l, "fr-") || strings.HasPrefix(l, "fr.") {
		return language.French
	}
	return language.English
}

func init() {
	// fr is the French help template's: cobra's own words in its lines.
	cobra.AddTemplateFunc("fr", func(s string) string {
		return strings.NewReplacer("[flags]", "[options]", "[command]", "[commande]", "(default ", "(par défaut ").Replace(s)
	})
}

// tr translates a message format and formats it. The numbers are the
// command line's to write (game.GroupDigits for amounts and counts,
// identifiers as they are, c.decimal): a printer's own would group a
// payment's number and write block 0001 as "0 001".
//
// Its text arguments (strings, errors) are text of the ledger's or of the
// user's, printed through terminal: no control character nor
// bidirectional override of an operator's name, a reason, a desk reaches
// the terminal raw, whichever command prints it. Text of the command
// line's own that holds line breaks goes as ours.
func (c *cli) tr(format string, args ...any) string {
	return fmt.Sprintf(c.format(format), shownArgs(args)...)
}

// format is a message format in the command line's language.
func (c *cli) format(format string) string {
	if c.lang != language.French {
		return format
	}
	if fr, ok := frenchMessages()[format]; ok {
		return fr
	}
	return format
}

// printf prints a message, translated (tr), on w.
func (c *cli) printf(w io.Writer, format string, args ...any) {
	fmt.Fprint(w, c.tr(format, args...))
}

// word is a word of the ledger's (a verdict, a ticket's status, a pack's
// state or move, how a ticket was identified) in the command line's
// language.
func (c *cli) word(s string) string { return c.inLanguage(frenchWords, s) }

// move is a move of packs in the command line's language.
func (c *cli) move(s string) string { return c.inLanguage(frenchMoves, s) }

// inLanguage is s in the command line's language, from french (made when
// first asked, by a French process only).
func (c *cli) inLanguage(french func() map[string]string, s string) string {
	if c.lang != language.French {
		return s
	}
	if fr, ok := french()[s]; ok {
		return fr
	}
	return s
}

// count is n and its noun, one or other, in the command line's language:
// "1 pack", "0 packs", "2 000 packs"; in French "0 carnet", "2 carnets".
func (c *cli) count(n int, one, other string) string {
	return game.GroupDigits(n) + " " + c.plural(n, one, other)
}

// plural is the noun for n things, one or other, in the command line's
// language (French: 0 and 1 take the singular).
func (c *cli) plural(n int, one, other string) string {
	if n == 1 || n == 0 && c.lang == language.French {
		return c.text(one)
	}
	return c.text(other)
}

// packRange is a range of packs: "531-0001-0100-0 to 531-0001-0101-3", in
// French "… à …".
func (c *cli) packRange(r game.PackRange) string {
	first := game.PackCode{Game: r.Game, Block: r.Block, Pack: r.First}
	if r.First == r.Last {
		return first.String()
	}
	return c.tr("%s to %s", first, game.PackCode{Game: r.Game, Block: r.Block, Pack: r.Last})
}

// day, minute and moment write a time of the ledger, in local time: a
// day, to the minute, to the second (French: 01/05/2025 10:00:00).
func (c *cli) day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return c.timeAs(t, time.DateOnly, "02/01/2006")
}

func (c *cli) minute(t time.Time) string { return c.timeAs(t, "2006-01-02 15:04", "02/01/2006 15:04") }
func (c *cli) moment(t time.Time) string { return c.timeAs(t, timeLayout, "02/01/2006 15:04:05") }

func (c *cli) timeAs(t time.Time, en, fr string) string {
	if c.lang == language.French {
		return t.Local().Format(fr)
	}
	return t.Local().Format(en)
}

// dayOf is a day the ledger writes 2025-05-01, as day writes it.
func (c *cli) dayOf(s string) string {
	t, err := time.ParseInLocation(time.DateOnly, s, time.Local)
	if err != nil {
		return s
	}
	return c.day(t)
}

// decimal writes x with prec decimals, a comma before them in French.
func (c *cli) decimal(x float64, prec int) string {
	s := strconv.FormatFloat(x, 'f', prec, 64)
	if c.lang == language.French {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// cents writes an amount of cents: "1645.00 €"; in French as the papers
// write it, "1 645,00 €".
func (c *cli) cents(x paper.Cents) string {
	if c.lang != language.French {
		return plain(x)
	}
	sign := ""
	if x < 0 {
		sign, x = "-", -x
	}
	return fmt.Sprintf("%s%s,%02d €", sign, game.GroupDigits(int(x/100)), x%100)
}

// text translates a text that is no format (a help text): its French is
// the catalogue's, whose keys are formats (a % written %%), and as
// golang.org/x/text/message's printer wrote it from a catalogue of them
// (TestTextAsPrinter): a format without arguments, %% a %.
func (c *cli) text(s string) string {
	if s == "" || c.lang != language.French {
		return s
	}
	if fr, ok := frenchMessages()[strings.ReplaceAll(s, "%", "%%")]; ok {
		return strings.ReplaceAll(fr, "%%", "%")
	}
	return s
}

// translateHelp puts every help text of the tree in the command line's
// language: the commands' descriptions, their flags' and the headings.
func (c *cli) translateHelp(root *cobra.Command) {
	if c.lang != language.French {
		return
	}
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.SetUsageTemplate(strings.NewReplacer(
		"{{.UseLine}}", "{{fr .UseLine}}", "trimTrailingWhitespaces}}", "trimTrailingWhitespaces | fr}}",
		"Usage:", "Utilisation :", "Aliases:", "Alias :", "Examples:", "Exemples :",
		"Available Commands:", "Commandes :", "Additional Commands:", "Autres commandes :",
		"Global Flags:", "Options globales :", "Flags:", "Options :", "Additional help topics:", "Autres sujets :",
		"[flags]", "[options]", "[command]", "[commande]",
		`for more information about a command.`, `pour l'aide d'une commande.`, `Use "`, `Voir "`,
	).Replace(root.UsageTemplate()))
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		cmd.Short, cmd.Long = c.text(cmd.Short), c.text(cmd.Long)
		if cmd.Flags().Lookup("help") == nil {
			cmd.Flags().BoolP("help", "h", false, c.tr("help for %s", cmd.Name()))
		}
		tr := func(f *pflag.Flag) { f.Usage = c.text(f.Usage) }
		cmd.LocalNonPersistentFlags().VisitAll(tr)
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) { f.Usage = c.text(f.Usage) })
	walk(root)
}

// rewrite is one message of another's (cobra's, the game's, the
// ledger's), in French: what it matches, and its French (regexp.Expand's).
type rewrite struct {
	re *lazyRegexp
	fr string
}

// lazyRegexp is a regular expression compiled when first used: the
// rewrites serve a French process's errors only, and compiling the dozens
// of them at every start cost more than a lookup itself.
// TestRewritesCompile compiles each.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func lazyRE(src string) *lazyRegexp { return &lazyRegexp{src: src} }

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

// rewritten is s rewritten by the first of rs that matches it.
func rewritten(rs []rewrite, s string) (string, bool) {
	for _, x := range rs {
		if x.re.get().MatchString(s) {
			return x.re.get().ReplaceAllString(s, x.fr), true
		}
	}
	return s, false
}

// cobraErrors are cobra's and pflag's own usage errors, in French.
var cobraErrors = []rewrite{
	{lazyRE(`strconv\.ParseBool: parsing ".*?": invalid syntax$`), `ni true ni false (une option oui/non s'écrit seule, --json, ou --json=false)`},
	{lazyRE(`strconv\.Parse(?:Int|Uint|Float): parsing ".*?": invalid syntax$`), `pas un nombre`},
	{lazyRE(`strconv\.Parse(?:Int|Uint|Float): parsing ".*?": value out of range$`), `nombre trop grand`},
	{lazyRE(`time: (?:invalid|missing unit in) duration ".*"$`), `pas une durée (écrivez 30m, 2h)`},
	{lazyRE(`^unknown command "(.*)" for "(.*)"`), `commande inconnue « $1 » de $2`},
	{lazyRE(`^unknown (?:shorthand )?flag: '?(.*?)'?( in .*)?$`), `option inconnue : $1`},
	{lazyRE(`^flag needs an argument: '?(.*?)'?( in .*)?$`), `l'option $1 demande une valeur`},
	{lazyRE(`^bad flag syntax: (.*)$`), `option mal écrite : $1 (écrivez --nom ou -n)`},
	{lazyRE(`^invalid argument "(.*)" for "(.*)" flag: (.*)$`), `valeur « $1 » de $2 refusée : $3`},
}

// say is err's message in the command line's language.
func (c *cli) say(err error) string {
	s := err.Error()
	if c.lang != language.French {
		return s
	}
	var own *ownWords
	if errors.As(err, &own) {
		return strings.Replace(s, own.Error(), fmt.Sprintf(strings.ReplaceAll(c.format(own.format), "%w", "%v"), c.sayArgs(own.args)...), 1)
	}
	var ue usageError
	if errors.As(err, &ue) {
		return strings.Replace(s, ue.Error(), fmt.Sprintf(c.format(ue.format), c.sayArgs(ue.args)...), 1)
	}
	var r *ledger.Refusal
	if errors.As(err, &r) {
		return strings.Replace(s, r.Error(), c.refusal(r), 1)
	}
	for _, w := range serverWords {
		if errors.Is(err, w.err) && !strings.Contains(s, w.err.Error()) {
			// A server's words, which name the desk: the French first.
			return c.text(w.say) + " (" + s + ")"
		}
	}
	if errors.Is(err, ledger.ErrPackMove) {
		for _, x := range packMoveWords {
			if m := x.re.get().FindStringSubmatchIndex(s); m != nil {
				return s[:m[0]] + x.fr(c, x.re.get().FindStringSubmatch(s[m[0]:]))
			}
		}
	}
	if errors.Is(err, game.ErrCheckDigit) || errors.Is(err, game.ErrSerialFormat) {
		if fr, ok := rewritten(serialErrors, s); ok {
			return fr
		}
	}
	if errors.Is(err, game.ErrCheckDigit) || errors.Is(err, game.ErrPackCodeFormat) {
		if fr, ok := rewritten(packCodeWords, s); ok {
			return fr
		}
	}
	if fr, ok := rewritten(seedWords, s); ok {
		return fr
	}
	if fr, ok := rewritten(ledgerWords, s); ok {
		return fr
	}
	for _, e := range ledgerErrors {
		if s == e.Error() { // within an English sentence, it stays English
			return c.text(s)
		}
	}
	return s
}

// sayArgs are a message's arguments in the command line's language: its
// errors said (say), cobra's words translated.
func (c *cli) sayArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if e, ok := a.(error); ok {
			a = c.say(e)
		}
		if e, ok := a.(string); ok {
			for _, x := range cobraErrors {
				e = x.re.get().ReplaceAllString(e, x.fr)
			}
			a = strings.Replace(e, limitWords, c.text(limitWords), 1)
		}
		out[i] = a
	}
	return out
}

// serialErrors are game.ParseSerial's messages, in French.
var serialErrors = []rewrite{
	{lazyRE(`^serial (".*"): check digit does not match: a digit was mistyped; type the serial again$`),
		`ticket $1 : la clé de contrôle ne correspond pas : un chiffre a été mal tapé ; retapez le numéro`},
	{lazyRE(`^serial (".*"): not a serial: (\d+) digits where a serial has (\d+) \((.*)\); type all of them$`),
		`ticket $1 : pas un numéro : $2 chiffres là où un numéro en a $3 ($4) ; tapez-les tous`},
	{lazyRE(`^serial (".*"): not a serial: (".*") is not a digit; type its (\d+) digits \(spaces and dashes may separate them\)$`),
		`ticket $1 : pas un numéro : $2 n'est pas un chiffre ; tapez ses $3 chiffres (des espaces et des tirets peuvent les séparer)`},
	{lazyRE(`^serial (".*"): not a serial: game code (\d+) does not exist \(codes go from (\d+) to (\d+)\); check the first 3 digits$`),
		`ticket $1 : pas un numéro : le code de jeu $2 n'existe pas (les codes vont de $3 à $4) ; vérifiez les 3 premiers chiffres`},
	{lazyRE(`^serial (".*"): not a serial: block 0000 does not exist \(blocks start at 0001\); check digits 4 to 7$`),
		`ticket $1 : pas un numéro : le bloc 0000 n'existe pas (les blocs commencent à 0001) ; vérifiez les chiffres 4 à 7`},
	{lazyRE(`^serial (".*"): not a serial: position (\d+) is past the block's last ticket, (\d+); check digits 8 to 14$`),
		`ticket $1 : pas un numéro : la position $2 dépasse le dernier ticket du bloc, $3 ; vérifiez les chiffres 8 à 14`},
}

// serverWords say what a validation server's refusal of the desk means
// and whom to call, where its own words are a sentence of their own.
var serverWords = []struct {
	err error
	say string
}{
	{ledger.ErrDeskDisabled, "this desk is disabled: call the back office"},
	{ledger.ErrDeskRevoked, "this desk file is revoked: ask the back office for the new one"},
	{ledger.ErrDeskUnknown, "the server knows no such desk: call the back office"},
	{ledger.ErrOtherLedger, "the server serves another ledger than this desk file's: call the back office"},
	{ledger.ErrUnavailable, "the validation server answers, but its ledger does not (not the network): call the back office"},
}

// ledgerErrors are the ledger's errors the catalogue translates where
// they stand in a message.
var ledgerErrors = []error{
	ledger.ErrNotLedger, ledger.ErrTooNew, ledger.ErrTooOld, ledger.ErrNoLedger, ledger.ErrNotDemo, ledger.ErrNotFound,
	ledger.ErrReadOnly, ledger.ErrUnreachable, ledger.ErrCounterOnly, ledger.ErrDeskMismatch, ledger.ErrDeskDisabled,
	ledger.ErrDeskUnknown, ledger.ErrDeskRevoked, ledger.ErrOtherLedger, ledger.ErrRequestReused, ledger.ErrMinor,
	ledger.ErrDocumentExpired,
}

// refusal is a refused claim's or lookup's message (ledger.Refusal's), in
// the command line's language.
func (c *cli) refusal(r *ledger.Refusal) string {
	s := r.Serial
	day := func() string { return r.Until.Local().Format("02/01/2006") }
	switch r.Verdict {
	case ledger.UnknownSerial:
		return c.tr("serial %s: unknown serial: no ticket of the ledger has this serial; check it against the ticket", s)
	case ledger.UnknownContents:
		return c.tr("no ticket of the ledger shows these contents; check every zone against the ticket")
	case ledger.Locked:
		return c.tr("desk locked out until %s after too many unknown serials; the back office can unlock it", r.Until.Local().Format("15:04"))
	case ledger.NotYetOnSale:
		return c.tr("serial %s: not yet on sale: the emission goes on sale on %s", s, day())
	case ledger.Expired:
		return c.tr("serial %s: claim deadline passed on %s (forclos): do not pay", s, day())
	case ledger.Stolen:
		return c.tr("serial %s: its pack was reported stolen: keep the ticket and call the back office", s)
	case ledger.NotActivated:
		return c.tr("serial %s: its pack is not on sale: do not pay", s)
	case ledger.NotWinner:
		return c.tr("serial %s: this ticket loses, there is nothing to pay", s)
	case ledger.AlreadyClaimed:
		if f := r.First; f != nil && f.Desk != "" {
			return c.tr("serial %s: already claimed: payment n° %d of %s on %s at desk %q by %q; do not pay again", s, f.Number,
				game.FormatAmount(f.Amount), f.At.Local().Format("02/01/2006 15:04:05"), f.Desk, f.Operator)
		} else if f != nil {
			return c.tr("serial %s: already claimed: already paid on %s; do not pay again", s, f.At.Local().Format("02/01/2006"))
		}
		return c.tr("serial %s: already claimed", s)
	case ledger.OverLimit:
		return c.tr("serial %s: %s is above this desk's payout limit: the back office pays it (referral recorded)", s, game.FormatAmount(r.Amount))
	case ledger.IdentityRequired:
		return c.tr("serial %s: %s: a payment from the identity threshold records the winner's name and identity document", s, game.FormatAmount(r.Amount))
	}
	return r.Error() // voided: its request's words, which the catalogue does not hold
}

// limit is a payout limit in the command line's language.
func (c *cli) limit(l ledger.Limit) string {
	if l == ledger.NoLimit {
		return c.text(l.String())
	}
	return l.String()
}

// importFlag is a flag of import-claims in the command line's language:
// its kind, and its words where the catalogue below knows them (the
// ledger's own words otherwise, which name the serial and amounts).
func (c *cli) importFlag(f ledger.ImportFlag) string {
	if c.lang != language.French {
		return f.String()
	}
	what, _ := rewritten(flagWords, f.What)
	if f.Entry == 0 {
		return c.word(f.Kind) + " : " + what
	}
	return fmt.Sprintf("écriture %d du guichet : %s : %s", f.Entry, c.word(f.Kind), what)
}

// flagWords are the ledger's words of an import's flags, in French.
var flagWords = []rewrite{
	{lazyRE(`^pays (.+) for ticket (\S+), above the payout limit of (.+) sealed in the counter's ledger: the back office pays it$`),
		`paie ${1} pour le ticket ${2}, au-dessus du plafond de ${3} scellé dans le registre du guichet : le siège le paie`},
	{lazyRE(`^pays (.+) for ticket (\S+), which wins (.+)$`), `paie ${1} pour le ticket ${2}, qui gagne ${3}`},
	{lazyRE(`^refers ticket (\S+), which wins (.+): not above the payout limit of (.+) sealed in the counter's ledger$`),
		`renvoie le ticket ${1}, qui gagne ${2} : pas au-dessus du plafond de ${3} scellé dans le registre du guichet`},
	{lazyRE(`^ticket (\S+): the counter ledger paid it on (.+?) \(payment (\d+) here\) and pays it again on (.+?): a counter ledger pays a ticket once, so this entry was written outside it; not recorded as a payment$`),
		`ticket ${1} : le registre du guichet l'a payé le ${2} (paiement ${3} ici) et le paie de nouveau le ${4} : un registre de guichet ne paie un ticket qu'une fois, cette écriture a donc été faite hors de lui ; pas enregistrée comme paiement`},
	{lazyRE(`^ticket (\S+) was paid twice: (.+?) on (.+?) at desk "(.*?)" by "(.*?)" \(payment (\d+)\), and on (.+?) at desk "(.*?)" by "(.*?)" \(the counter ledger's payment (\d+), recorded here as payment (\d+)\): (.+?) to recover, an open case until a decision closes it \(vegas-desk cases\)$`),
		`ticket ${1} payé deux fois : ${2} le ${3} au guichet « ${4} » par « ${5} » (paiement ${6}), et le ${7} au guichet « ${8} » par « ${9} » (paiement ${10} du registre du guichet, enregistré ici comme paiement ${11}) : ${12} à recouvrer, un dossier ouvert jusqu'à ce qu'une décision le close (vegas-desk cases)`},
	{lazyRE(`^ticket (\S+) paid on (.+?): before the emission's on-sale date$`), `ticket ${1} payé le ${2} : avant la mise en vente de l'émission`},
	{lazyRE(`^ticket (\S+) paid on (.+?): after the claim deadline$`), `ticket ${1} payé le ${2} : après la forclusion`},
	{lazyRE(`^ticket (\S+) paid on (.+?): its pack was reported stolen$`), `ticket ${1} payé le ${2} : son carnet a été déclaré volé`},
	{lazyRE(`^ticket (\S+) paid on (.+?): its pack was not on sale then$`), `ticket ${1} payé le ${2} : son carnet n'était pas en vente`},
	{lazyRE(`^pays (.+) for ticket (\S+) without the winner's identity, required from (.+)$`),
		`paie ${1} pour le ticket ${2} sans l'identité du gagnant, requise à partir de ${3}`},
	{lazyRE(`^the payment records a winner's identity that is none \((.*)\)$`), `le paiement enregistre une identité du gagnant qui n'en est pas une (${1})`},
	{lazyRE(`^the payment records a winner's identity that the file does not hold$`), `le paiement enregistre une identité du gagnant que le fichier ne tient pas`},
}

// fault is a fault of typed-in contents (check's) in the command line's
// language: in French, its field and value and what kind of fault it is,
// as the app says it.
func (c *cli) fault(e *game.FieldError) string {
	if c.lang != language.French {
		return e.Error()
	}
	what := map[game.Kind]string{
		game.KindSyntax:     "n'est pas un objet JSON : donnez le contenu d'un ticket, tel qu'export l'écrit",
		game.KindUnknownKey: "n'est pas une clé du format des tickets",
		game.KindMissing:    "manque",
		game.KindType:       "n'est pas du bon type",
		game.KindCount:      "n'a pas le bon nombre d'éléments",
		game.KindValue:      "n'est pas une valeur que le jeu montre ici",
		game.KindRepeat:     "est répété",
		game.KindSerial:     "n'est pas un numéro de ticket",
	}[e.Kind]
	if what == "" {
		return e.Error()
	}
	if e.Value == "" {
		return e.Field + " : " + what
	}
	return e.Field + " : " + e.Value + " " + what
}

// reasonWords are the reasons of a check that no genuine ticket of the
// ledger shows the contents (the game's and the ledger's), in French.
var reasonWords = []rewrite{
	{lazyRE(`^the zones add up to (.+) € \((.*)\), which is not a prize of the game: no genuine ticket shows it$`),
		`les zones totalisent ${1} € (${2}), qui n'est pas un gain du jeu : aucun ticket authentique ne le montre`},
	{lazyRE(`^the stated prize (.+) € differs from the rules' (.+) €$`), `le gain indiqué, ${1} €, diffère de celui des règles, ${2} €`},
	{lazyRE(`^the ledger's ticket (\S+) shows other contents$`), `le ticket ${1} du registre montre un autre contenu`},
	{lazyRE(`^the given serial (\S+) is not the serial of the ledger's ticket with these contents \((\S+)\)$`),
		`le numéro donné, ${1}, n'est pas celui du ticket du registre qui a ce contenu (${2})`},
	{lazyRE(`^no ticket of the ledger shows these contents$`), `aucun ticket du registre ne montre ce contenu`},
}

// reason is a check's reason in the command line's language.
func (c *cli) reason(r string) string {
	if c.lang == language.French {
		r, _ = rewritten(reasonWords, r)
	}
	return r
}

// packMoveWords are the ledger's refusals of a move of packs, in French:
// what they match, and the French of their parts (states in words).
var packMoveWords = []struct {
	re *lazyRegexp
	fr func(c *cli, m []string) string
}{
	{lazyRE(`pack move not allowed: pack (\S+) is (\S+); (\S+) needs it (.+)$`), func(c *cli, m []string) string {
		return fmt.Sprintf("déplacement de carnets refusé : le carnet %s est %s ; %s : il le faut %s", m[1], c.word(m[2]), c.move(m[3]), c.words(m[4]))
	}},
	{lazyRE(`pack move not allowed: pack (\S+) is (\S+); this move takes packs that are (.+) only$`), func(c *cli, m []string) string {
		return fmt.Sprintf("déplacement de carnets refusé : le carnet %s est %s ; ce mouvement ne prend que des carnets %s", m[1], c.word(m[2]), c.words(m[3]))
	}},
	{lazyRE(`pack move not allowed: pack (\S+) was not delivered to desk (\S+): ask the back office$`), func(c *cli, m []string) string {
		return fmt.Sprintf("déplacement de carnets refusé : le carnet %s n'a pas été livré au guichet %s : demandez au siège", m[1], m[2])
	}},
	{lazyRE(`pack move not allowed: pack (\S+) was delivered to desk (\S+), not (\S+)$`), func(c *cli, m []string) string {
		return fmt.Sprintf("déplacement de carnets refusé : le carnet %s a été livré au guichet %s, pas %s", m[1], c.word(m[2]), m[3])
	}},
	{lazyRE(`pack move not allowed: packs (\S+) and (\S+) are desk (\S+)'s and desk (\S+)'s: move them one counter at a time$`), func(c *cli, m []string) string {
		return fmt.Sprintf("déplacement de carnets refusé : les carnets %s et %s sont au guichet %s et au guichet %s : déplacez-les un guichet à la fois",
			m[1], m[2], c.word(m[3]), c.word(m[4]))
	}},
	{lazyRE(`pack move not allowed: packs (\d+)–(\d+) of block (\S+): packs go from 0 to (\d+)$`), func(c *cli, m []string) string {
		return fmt.Sprintf("déplacement de carnets refusé : carnets %s–%s du bloc %s : les carnets vont de 0 à %s", m[1], m[2], m[3], m[4])
	}},
}

// words are the ledger's words joined by " or ", in the command line's
// language.
func (c *cli) words(s string) string {
	ws := strings.Split(s, " or ")
	for i, w := range ws {
		ws[i] = c.word(w)
	}
	return strings.Join(ws, c.tr(" or "))
}

// packCodeWords are game.ParsePacks' messages, in French.
var packCodeWords = []rewrite{
	{lazyRE(`pack code: ['"](.*)['"] is not a digit; type the (\d+) digits printed under the pack's barcode \(spaces and dashes allowed\): not a pack code$`),
		`code de carnet : « ${1} » n'est pas un chiffre ; tapez les ${2} chiffres imprimés sous le code-barres du carnet (espaces et tirets permis)`},
	{lazyRE(`pack code: (\d+) digits, want (\d+) \((.*)\): not a pack code$`), `code de carnet : ${1} chiffres, il en faut ${2} (${3})`},
	{lazyRE(`pack code: .*: a digit was mistyped; scan or type the code again$`),
		`code de carnet : la clé de contrôle ne correspond pas : un chiffre a été mal tapé ; scannez ou tapez de nouveau le code`},
	{lazyRE(`pack code: game code (\d+) is not a game code \((\d+) to (\d+)\): not a pack code$`),
		`code de carnet : ${1} n'est pas un code de jeu (de ${2} à ${3})`},
	{lazyRE(`pack code: block 0000 does not exist, blocks start at 0001: not a pack code$`),
		`code de carnet : le bloc 0000 n'existe pas, les blocs commencent à 0001`},
	{lazyRE(`pack code: pack (\d+) is past the block's (\d+) packs: not a pack code$`),
		`code de carnet : le carnet ${1} dépasse les ${2} carnets du bloc`},
	{lazyRE(`pack (\S+) is of block (\S+), not of block (\S+): not a pack code$`), `le carnet ${1} est du bloc ${2}, pas du bloc ${3}`},
	{lazyRE(`pack "(.*)": want a pack number 0–(\d+), a range A-B or a pack code (\S+): not a pack code$`),
		`carnet « ${1} » : il faut un numéro de carnet de 0 à ${2}, une plage A-B ou un code de carnet ${3}`},
	{lazyRE(`pack "(.*)": a pack number needs its block \(or scan the pack's code\): not a pack code$`),
		`carnet « ${1} » : un numéro de carnet demande son bloc (ou scannez le code du carnet)`},
	{lazyRE(`no pack given: type pack numbers, ranges A-B or scan pack codes: not a pack code$`),
		`aucun carnet donné : tapez des numéros de carnet, des plages A-B ou scannez des codes de carnet`},
}

// ledgerWords are the ledger's errors that carry their own context (a
// payment's number, a desk), in French.
var ledgerWords = []rewrite{
	{lazyRE(`backup of (\S+) into (\S+): (\S+): a folder of files that hold serials must be its owner's alone \(mode (\d+)\): run chmod 700 (\S+)$`),
		`sauvegarde de ${1} dans ${2} : ${3} : un dossier de fichiers qui contiennent des numéros de série doit être à son seul propriétaire (mode ${4}) : lancez chmod 700 ${5}`},
	{lazyRE(`(\S+): a folder of files that hold serials must be its owner's alone \(mode (\d+)\): run chmod 700 (\S+)$`),
		`${1} : un dossier de fichiers qui contiennent des numéros de série doit être à son seul propriétaire (mode ${2}) : lancez chmod 700 ${3}`},
	{lazyRE(`the original could not be fenced: restore of (.*): the ledger it replaces, (\S+) at (\S+), cannot be marked replaced \((.*)\); while it may still serve.*nothing was written$`),
		`l'original n'a pu être écarté : restauration de ${1} : le registre qu'elle remplace, ${2} à ${3}, ne peut être marqué remplacé (${4}) ; tant qu'il peut encore servir, une restauration à côté de lui paie à nouveau ses tickets : faites qu'il réponde ici (l'identifiant du back-office, PGPASSWORD) pour qu'il soit marqué, ou, s'il a disparu pour de bon, dites-le : copy --restore --original-gone (chaque guichet a alors besoin d'un nouveau fichier de guichet : desks cert) ; rien n'a été écrit`},
	{lazyRE(`void payment (\d+): not found: no payment has this number \(see the claims command\)$`),
		`annulation du paiement ${1} : introuvable : aucun paiement n'a ce numéro (voir la commande claims)`},
	{lazyRE(`void payment (\d+): already voided on (\S+ \S+) by "(.*)": "(.*)"$`), `annulation du paiement ${1} : déjà annulé le ${2} par « ${3} » : « ${4} »`},
	{lazyRE(`payment (\d+): not found: no payment has this number \(see the claims command\)$`),
		`paiement ${1} : introuvable : aucun paiement n'a ce numéro (voir la commande claims)`},
	{lazyRE(`deliver packs: desk (\S+): not found: the ledger lists no such desk; check its name \(desks list\), or add it first \(desks add (\S+)\)$`),
		`livraison de carnets : guichet ${1} : introuvable : le registre n'a pas ce guichet ; vérifiez son nom (desks list), ou ajoutez-le d'abord (desks add ${2})`},
	{lazyRE(`desk (\S+) exists already \(see desks list\)$`), `le guichet ${1} existe déjà (voir desks list)`},
	{lazyRE(`desk (\S+): not found: no such desk \(see desks list\)$`), `guichet ${1} : introuvable : le registre n'a pas ce guichet (voir desks list)`},
	{lazyRE(`close case (\d+): not found: payment (\d+) is no double payment \(see the cases command\)$`),
		`clôture du dossier ${1} : introuvable : le paiement ${2} n'est pas un double paiement (voir la commande cases)`},
	{lazyRE(`the end of sale comes before the on-sale date: give dates in order$`),
		`la fin de vente vient avant la mise en vente : donnez les dates dans l'ordre`},
	{lazyRE(`block (\d+/\d+): not found$`), `bloc ${1} : introuvable`},
	{lazyRE(`game (\d+): not found: the ledger knows no such game$`), `jeu ${1} : introuvable : le registre ne connaît pas ce jeu`},
}
