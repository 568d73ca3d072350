package paper

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
)

// Certificate is what a block certificate shows: the block, its digest,
// its prize table and a signature made by the caller.
type Certificate struct {
	Game        int    // game code: 531
	GameName    string // VEGAS
	Block       int
	Tickets     int     // tickets in the block
	Digest      string  // the block digest, hex
	Prizes      []Prize // the prize table, printed in the order given
	GeneratedAt time.Time
	PublicKey   string // Ed25519 public key, hex
	Signature   string // Ed25519 signature, hex
	// PrintedAt is when the certificate is printed; it is the PDF's date
	// too (GeneratedAt when zero).
	PrintedAt time.Time
	// Document, when given, is the signed text of the certificate, attached
	// to the PDF as a file (AttachmentName), which verify-certificate reads.
	Document string
	// Drawing is how the block's seed was drawn from the operator's and
	// the auditor's secrets; nil: the seed was chosen by the operator
	// alone, which the certificate says.
	Drawing *Drawing
}

// Drawing is a seed drawn from two committed secrets: when the generation
// began, and each party's commitment and revealed secret's hash.
type Drawing struct {
	Began   time.Time
	Parties []DrawParty
}

// DrawParty is one party's commitment, when it was recorded, and the hash
// of the secret it revealed (hex).
type DrawParty struct {
	Role       string // "operator" or "auditor"
	Commitment string
	RecordedAt time.Time
	RevealHash string
}

// roleNames are the parties' names on paper, after "de" and after "par".
var roleNames = map[string][2]string{"operator": {"de l'opérateur", "par l'opérateur"}, "auditor": {"du contrôleur", "par le contrôleur"}}

func roleName(r string, by int) string {
	if n, ok := roleNames[r]; ok {
		return n[by]
	}
	return [2]string{"de", "par"}[by] + " « " + r + " »"
}

// AttachmentName is the name of the signed text attached to a certificate.
const AttachmentName = "certificat.txt"

// Prize is a line of a prize table: so many tickets win so much.
type Prize struct {
	Amount int // euros
	Count  int
}

// WriteCertificate writes a block certificate: A4.
func WriteCertificate(w io.Writer, c Certificate) error {
	block := fmt.Sprintf("%s — jeu %03d — bloc %04d", orDash(c.GameName), c.Game, c.Block)
	m := meta{
		title: "Certificat de bloc — " + block + printed(c.PrintedAt),
		date:  docDate(c.PrintedAt, c.GeneratedAt),
	}
	return writeA4(w, m, func(d *doc) {
		if c.Document != "" {
			d.pdf.SetAttachments([]fpdf.Attachment{{Content: []byte(c.Document), Filename: AttachmentName,
				Description: "Texte signé du certificat"}})
		}
		d.title("Certificat de bloc", block)

		d.heading("Le bloc", 30)
		const lw = 30.0
		d.field(lw, 5.5, "Jeu", fmt.Sprintf("%03d %s", c.Game, c.GameName))
		d.field(lw, 5.5, "Bloc", fmt.Sprintf("%04d", c.Block))
		d.field(lw, 5.5, "Tickets", number(c.Tickets))
		d.field(lw, 5.5, "Généré le", longStamp(c.GeneratedAt))
		d.pdf.Ln(1)
		d.hexField("Empreinte du bloc (SHA-256)", c.Digest, 8)

		d.heading("La graine", 20)
		if c.Drawing == nil {
			d.font("B", 9.5)
			d.para(0, 5, "Graine choisie par l'opérateur seul.", "L")
			d.font("", 9.5)
			d.para(0, 5, "Un bloc de démonstration ou d'essai"+nbsp+": aucun tiers n'a pris part au tirage de sa graine.", "L")
		} else {
			d.font("", 9.5)
			d.para(0, 5, "Graine tirée de deux secrets, celui de l'opérateur et celui du contrôleur, chacun engagé (SHA-256) et enregistré "+
				"avant le début de la génération"+nbsp+": aucun des deux ne pouvait la choisir seul. Le bloc ci-dessus est généré de cette graine.", "L")
			d.pdf.Ln(1)
			d.field(44, 5.5, "Génération commencée le", longStamp(c.Drawing.Began))
			for _, p := range c.Drawing.Parties {
				d.pdf.Ln(1)
				d.hexField("Engagement "+roleName(p.Role, 0)+", enregistré le "+longStamp(p.RecordedAt), p.Commitment, 8)
				d.hexField("Empreinte du secret révélé "+roleName(p.Role, 1), p.RevealHash, 8)
			}
		}

		d.heading("Tableau des gains", 4*rowH)
		t := table{d, []column{
			{"Gain", 30, "R", false},
			{"En lettres", 70, "L", false},
			{"Tickets gagnants", 35, "R", false},
			{"Montant total", 45, "R", false},
		}, 0}
		t.header()
		winners, payout := 0, 0
		for _, p := range c.Prizes {
			t.row("", "", euros(p.Amount), amountWords(p.Amount), number(p.Count), euros(p.Count*p.Amount))
			winners += p.Count
			payout += p.Count * p.Amount
		}
		t.row("B", "", "Total", "", number(winners), euros(payout))

		d.heading("Signature", 45)
		d.hexField("Clé publique Ed25519", c.PublicKey, 8)
		d.pdf.Ln(1)
		d.hexField("Signature Ed25519", c.Signature, 8)
		d.pdf.Ln(3)
		d.font("", 9.5)
		d.para(0, 5, "Pour vérifier la signature, avec le fichier du certificat (FICHIER) et la clé publique ci-dessus"+nbsp+":", "L")
		d.pdf.Ln(1)
		d.mono("", 9)
		d.line(4.5, "vegas-desk verify-certificate FICHIER \\", "L")
		key := "    --key " + strings.Join(strings.Fields(orDash(c.PublicKey)), "")
		if c.Drawing == nil {
			d.line(4.5, key, "L")
		} else {
			d.line(4.5, key+" \\", "L")
			d.line(4.5, "    --reveal SECRET-OPÉRATEUR,SECRET-CONTRÔLEUR", "L")
			d.font("", 9.5)
			d.pdf.Ln(1)
			d.para(0, 5, "--reveal (les fichiers secrets, après la date limite des paiements) recalcule la graine et le bloc.", "L")
		}
	})
}

// longStamp is a date and time with its offset from UTC, for documents
// read far from the counter: "jeudi 1er mai 2025 à 12:00:00 (UTC+02:00)".
func longStamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return longDate(t) + " à " + t.Format("15:04:05") + " (UTC" + t.Format("-07:00") + ")"
}
