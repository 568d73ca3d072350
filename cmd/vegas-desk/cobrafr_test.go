package main

import (
	"strings"
	"testing"
)

// cobraEnglish are cobra's and pflag's own English words, which no line of
// a French command line may hold.
var cobraEnglish = []string{"Did you mean", "unknown command", "unknown flag", "unknown shorthand", "Usage:", "Flags:",
	"Available Commands:", "Additional", "Examples:", "Aliases:", "for more information", "required flag", "accepts ", "arg(s)",
	"invalid argument", "flag needs", "bad flag syntax", "Unknown help topic", "Generate the autocompletion", "autocompletion",
	"To load completions", "You will need", "strconv", "[flags]", "[command]", "(default ", "help for "}

// Issue 39 item 3: under a French locale, cobra's own texts are French
// too: its suggestion of a mistyped command, unknown commands and flags,
// a flag's value refused, a flag without its value, arguments in excess,
// an unknown help topic, the help's headings and the completion
// command's texts. Each case is run through the command line's tree, and
// no English phrase of cobra's is left.
func TestCobraFrench(t *testing.T) {
	t.Setenv("LANG", "fr_FR.UTF-8")
	for _, tc := range []struct {
		args   []string
		code   int
		french []string
	}{
		{[]string{"claimz"}, 2, []string{"commande inconnue « claimz » de vegas-desk : vouliez-vous dire claim ou claims ? (voir vegas-desk --help)"}},
		{[]string{"claimz", "--desk", "C1"}, 2, []string{"commande inconnue « claimz »", "vouliez-vous dire claim ou claims ?"}},
		{[]string{"frobnicate"}, 2, []string{"commande inconnue « frobnicate » de vegas-desk (voir vegas-desk --help)"}},
		{[]string{"claim", "--frob"}, 2, []string{"option inconnue : --frob (voir vegas-desk claim --help)"}},
		{[]string{"claim", "-z"}, 2, []string{"option inconnue : z (voir vegas-desk claim --help)"}},
		{[]string{"claim", "x", "--desk"}, 2, []string{"l'option --desk demande une valeur"}},
		{[]string{"report", "--block", "1x"}, 2, []string{"valeur « 1x » de --block refusée : pas un nombre"}},
		{[]string{"claim", "x", "--json=peut-être"}, 2, []string{"valeur « peut-être » de --json refusée : ni true ni false"}},
		{[]string{"---x"}, 2, []string{"option mal écrite : ---x"}},
		{[]string{"claim"}, 2, []string{"claim : il faut un NUMÉRO de ticket, reçu 0 argument(s)"}},
		{[]string{"claim", "a", "b"}, 2, []string{"claim : il faut un NUMÉRO de ticket, reçu 2 argument(s)"}},
		{[]string{"completion", "bash", "x"}, 2, []string{"commande inconnue « x » de vegas-desk completion bash"}},
		{[]string{"help", "clam"}, 2, []string{"help clam : aucune commande de ce nom : vouliez-vous dire claim ou claims ? (voir vegas-desk --help)"}},
		{[]string{"help"}, 0, []string{"Utilisation :\n  vegas-desk [options]\n  vegas-desk [commande]", "Commandes :", "Options :", `Voir "vegas-desk [commande] --help" pour l'aide d'une commande.`}},
		{[]string{"help", "help"}, 0, []string{"vegas-desk help [commande] [options]"}},
		{[]string{"desks", "--help"}, 0, []string{"Exemples :", "Options globales :"}},
		{[]string{"completion", "--help"}, 0, []string{"Écrire le script de complétion de vegas-desk pour le shell donné."}},
		{[]string{"completion", "bash", "--help"}, 0, []string{"Il demande le paquet bash-completion", "source <(vegas-desk completion bash)", "--no-descriptions   sans les descriptions"}},
		{[]string{"completion", "zsh", "--help"}, 0, []string{"Pour chaque nouveau shell"}},
		{[]string{"completion", "fish", "--help"}, 0, []string{"vegas-desk completion fish | source"}},
		{[]string{"completion", "powershell", "--help"}, 0, []string{"profil PowerShell"}},
	} {
		out, errs, code := vdNone(t, tc.args...)
		all := out + errs
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, all)
		}
		for _, w := range tc.french {
			if !strings.Contains(all, w) {
				t.Errorf("%v: want %q in\n%s", tc.args, w, all)
			}
		}
		for _, en := range cobraEnglish {
			if strings.Contains(all, en) {
				t.Errorf("%v: cobra's English %q in\n%s", tc.args, en, all)
			}
		}
		if tc.code != 0 && strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: want one line of error, got\n%s", tc.args, errs)
		}
	}
	// In English, the suggestion is one line too, and help of no command
	// is an error, not the whole usage.
	t.Setenv("LANG", "C")
	for args, want := range map[string]string{
		"claimz":    `vegas-desk: unknown command "claimz" for vegas-desk: did you mean claim or claims? (see vegas-desk --help)` + "\n",
		"help clam": "vegas-desk: help clam: no such command: did you mean claim or claims? (see vegas-desk --help)\n",
	} {
		if _, errs, code := vdNone(t, strings.Fields(args)...); code != 2 || errs != want {
			t.Errorf("%s: exit %d\n%s(want %s)", args, code, errs, want)
		}
	}
}

// Issue 39 item 3: the service command (a Windows service) is not listed
// where it cannot work, neither by help nor by completion; asked for, it
// says what to use instead.
func TestServiceListedOnWindowsOnly(t *testing.T) {
	t.Setenv("LANG", "C")
	help, _, _ := vdNone(t, "help")
	completion, _, _ := vdNone(t, "__complete", "")
	serv, _, _ := vdNone(t, "__complete", "serv")
	listed := strings.Contains(help, "\n  service ") || strings.Contains(completion, "service\t") || strings.Contains(serv, "service")
	if listed != windowsService {
		t.Errorf("service listed %v where it works %v:\n%s\n%s\n%s", listed, windowsService, help, completion, serv)
	}
	if !strings.Contains(help, "\n  serve ") || !strings.Contains(serv, "serve\t") {
		t.Errorf("serve is not listed:\n%s\n%s", help, serv)
	}
	if !windowsService {
		if _, errs, code := vdNone(t, "service", "install"); code != exitUsage || !strings.Contains(errs, "serve --install-unit") {
			t.Errorf("service install: exit %d %s", code, errs)
		}
	}
}
