package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/platform"
)

// The command line speaks French where the locale is French, English
// elsewhere. Its messages are written in English and looked up in the
// French catalogue of golang.org/x/text/message (messages_fr.go), whose
// keys are the English format strings; a message without a translation
// stays English. The ledger's own refusals and errors are translated here,
// at the edge, by what they are (errors.Is, errors.As), not by rewriting
// the ledger's messages.

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
	cobra.AddTemplateFunc("fr", strings.NewReplacer("[flags]", "[options]", "(default ", "(par défaut ").Replace)
	for en, fr := range frenchMessages {
		if err := message.SetString(language.French, en, fr); err != nil {
			panic(err)
		}
	}
}

// tr translates a message format and formats it.
func (c *cli) tr(format string, args ...any) string {
	if c.p == nil {
		return fmt.Sprintf(format, args...)
	}
	return c.p.Sprintf(format, args...)
}

// text translates a text that is no format (a help text).
func (c *cli) text(s string) string {
	if s == "" || c.p == nil {
		return s
	}
	return c.p.Sprintf(strings.ReplaceAll(s, "%", "%%"))
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

// cobraErrors are cobra's and pflag's own usage errors, in French.
var cobraErrors = []struct {
	re *regexp.Regexp
	fr string
}{
	{regexp.MustCompile(`^unknown command "(.*)" for "(.*)"`), `commande inconnue « $1 » de $2`},
	{regexp.MustCompile(`^unknown (?:shorthand )?flag: '?(.*?)'?( in .*)?$`), `option inconnue : $1`},
	{regexp.MustCompile(`^flag needs an argument: '?(.*?)'?( in .*)?$`), `l'option $1 demande une valeur`},
	{regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: (.*)$`), `valeur « $1 » de $2 refusée : $3`},
}

// say is err's message in the command line's language.
func (c *cli) say(err error) string {
	s := err.Error()
	if c.lang != language.French {
		return s
	}
	var ue usageError
	if errors.As(err, &ue) {
		args := make([]any, len(ue.args))
		for i, a := range ue.args {
			if e, ok := a.(error); ok {
				a = c.say(e)
			}
			if e, ok := a.(string); ok {
				for _, x := range cobraErrors {
					e = x.re.ReplaceAllString(e, x.fr)
				}
				a = e
			}
			args[i] = a
		}
		return strings.Replace(s, ue.Error(), c.tr(ue.format, args...), 1)
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
	if errors.Is(err, game.ErrCheckDigit) || errors.Is(err, game.ErrSerialFormat) {
		for _, x := range serialErrors {
			if x.re.MatchString(s) {
				return x.re.ReplaceAllString(s, x.fr)
			}
		}
	}
	for _, e := range ledgerErrors {
		if s == e.Error() { // within an English sentence, it stays English
			return c.text(s)
		}
	}
	return s
}

// serialErrors are game.ParseSerial's messages, in French.
var serialErrors = []struct {
	re *regexp.Regexp
	fr string
}{
	{regexp.MustCompile(`^serial (".*"): check digit does not match: a digit was mistyped; type the serial again$`),
		`billet $1 : la clé de contrôle ne correspond pas : un chiffre a été mal tapé ; retapez le numéro`},
	{regexp.MustCompile(`^serial (".*"): not a serial: (\d+) digits where a serial has (\d+) \((.*)\); type all of them$`),
		`billet $1 : pas un numéro : $2 chiffres là où un numéro en a $3 ($4) ; tapez-les tous`},
	{regexp.MustCompile(`^serial (".*"): not a serial: (".*") is not a digit; type its (\d+) digits \(spaces and dashes may separate them\)$`),
		`billet $1 : pas un numéro : $2 n'est pas un chiffre ; tapez ses $3 chiffres (des espaces et des tirets peuvent les séparer)`},
	{regexp.MustCompile(`^serial (".*"): not a serial: game code (\d+) does not exist \(codes go from (\d+) to (\d+)\); check the first 3 digits$`),
		`billet $1 : pas un numéro : le code de jeu $2 n'existe pas (les codes vont de $3 à $4) ; vérifiez les 3 premiers chiffres`},
	{regexp.MustCompile(`^serial (".*"): not a serial: block 0000 does not exist \(blocks start at 0001\); check digits 4 to 7$`),
		`billet $1 : pas un numéro : le bloc 0000 n'existe pas (les blocs commencent à 0001) ; vérifiez les chiffres 4 à 7`},
	{regexp.MustCompile(`^serial (".*"): not a serial: position (\d+) is past the block's last ticket, (\d+); check digits 8 to 14$`),
		`billet $1 : pas un numéro : la position $2 dépasse le dernier billet du bloc, $3 ; vérifiez les chiffres 8 à 14`},
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
}

// ledgerErrors are the ledger's errors the catalogue translates where
// they stand in a message.
var ledgerErrors = []error{
	ledger.ErrNotLedger, ledger.ErrTooNew, ledger.ErrTooOld, ledger.ErrNoLedger, ledger.ErrNotDemo, ledger.ErrNotFound,
	ledger.ErrReadOnly, ledger.ErrUnreachable, ledger.ErrCounterOnly, ledger.ErrDeskMismatch, ledger.ErrDeskDisabled,
	ledger.ErrDeskUnknown, ledger.ErrDeskRevoked, ledger.ErrOtherLedger, ledger.ErrRequestReused,
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
