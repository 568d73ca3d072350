package main

import (
	"strings"
	"sync"
)

// frenchHelp is the French of the command line's help: the root's and the
// global flags' texts, each command's, each flag's (cobra's help templates
// serve them through golang.org/x/text/message). A % is written %%.
func frenchHelp() map[string]string {
	return map[string]string{
		// Global flags and the root's help.
		"the ledger: a file or a postgres:// URL (env VEGAS_DESK_DB)":                                                                                       "le registre : un fichier ou une URL postgres:// (env VEGAS_DESK_DB)",
		"(--server) the desk file it is asked with (env VEGAS_DESK_CERT)":                                                                                   "(--server) le fichier de guichet avec lequel l'interroger (env VEGAS_DESK_CERT)",
		"a validation server's https:// URL, asked instead of --db; several separated by commas: the next when one does not answer (env VEGAS_DESK_SERVER)": "l'URL https:// d'un serveur de validation, interrogé au lieu de --db ; plusieurs séparées par des virgules : le suivant quand l'un ne répond pas (env VEGAS_DESK_SERVER)",
		"the VEGAS ledger: the desktop app, or a command":                                                                                                   "le registre VEGAS : l'application, ou une commande",
		strings.ReplaceAll(rootLong, "%", "%%"): `vegas-desk est le registre VEGAS. Sans commande, il ouvre l'application (sur le
registre de --db ou VEGAS_DESK_DB, sinon le dernier choisi dans ses réglages) ;
avec une commande, il travaille sans fenêtre.

--db CHEMIN|URL (ou VEGAS_DESK_DB) choisit le registre : un fichier, ou un registre PostgreSQL
partagé (postgres://utilisateur@hôte/base ; le mot de passe de PGPASSWORD ou ~/.pgpass) ; par
défaut $XDG_DATA_HOME/vegas-desk/ledger.db (Windows : %%LOCALAPPDATA%%\vegas-desk\ledger.db).
--server https://HÔTE:PORT --desk-cert FICHIER (ou VEGAS_DESK_SERVER, VEGAS_DESK_CERT) : un
guichet interroge le serveur de validation (vegas-desk serve) comme le guichet de son fichier,
au lieu de --db (qui refuse une adresse http(s)://).
--game CODE (531 par défaut) choisit le jeu où un bloc est nommé.
--printer IMPRIMANTE imprime par CUPS (lp -d IMPRIMANTE) ; lpstat -e liste les files. Sous
Windows par le spouleur : IMPRIMANTE est son nom tel que Windows le liste.
Code de sortie : 0 bon, 1 refusé (numéro inconnu, perdant, déjà payé, vérification en échec), 2 saisie erronée.`,

		// The commands.
		"generate the next block of a game (2,000,000 tickets)": "générer le bloc suivant d'un jeu (2 000 000 de tickets)",
		"list the blocks": "lister les blocs",
		"a ticket by serial, and what a claim would answer":                               "un ticket par son numéro, et ce que répondrait un paiement",
		"check one ticket in the interchange format (- for standard input)":               "vérifier un ticket au format d'échange (- pour l'entrée standard)",
		"pay a winning ticket (its verdict: PAID, or why not)":                            "payer un ticket gagnant (son verdict : PAYÉ, ou pourquoi pas)",
		"void a payment (its number, as claims shows it)":                                 "annuler un paiement (son numéro, tel que claims le montre)",
		"the payments, filtered; as text, CSV, JSON or a counter's journal (--jsonl)":     "les paiements, filtrés ; en texte, CSV, JSON ou le journal d'un guichet (--jsonl)",
		"claims per day and desk, or one counter's day report (--desk --day)":             "les paiements par jour et guichet, ou le rapport du jour d'un guichet (--desk --day)",
		"show or set the emission's dates":                                                "afficher ou fixer les dates de l'émission",
		"refused attempts (stolen tickets flagged)":                                       "les tentatives refusées (tickets volés signalés)",
		"prizes above a counter's limit, to pay here":                                     "les gains au-dessus du plafond d'un guichet, à payer ici",
		"double payments: a counter's imported payment of a ticket paid already":          "les doubles paiements : le paiement importé d'un guichet pour un ticket déjà payé",
		"close a double payment by a recorded decision":                                   "clore un double paiement par une décision enregistrée",
		"a payment's receipt, written or printed (DUPLICATA once printed before)":         "le reçu d'un paiement, écrit ou imprimé (DUPLICATA s'il l'a déjà été)",
		"what a counter and the operator owe each other":                                  "ce que se doivent un guichet et l'opérateur",
		"show or set the back office's settings":                                          "afficher ou fixer les réglages du siège",
		"demonstration sheets, 4 tickets an A4 page (a real ledger: packs in stock only)": "des planches de démonstration, 4 tickets par page A4 (registre réel : carnets en stock seulement)",
		"a block's prizes, claims and liability":                                          "les gains, paiements et engagements d'un bloc",
		"a block as JSON Lines on the standard output":                                    "un bloc en JSON Lines sur la sortie standard",
		"check every ticket, digest and the journal":                                      "vérifier chaque ticket, empreinte et le journal",
		"the ways to win of a block":                                                      "les façons de gagner d'un bloc",
		"draw a ticket as PNG":                                                            "dessiner un ticket en PNG",
		"move packs between the stock and the counters, list them, print their labels":    "déplacer les carnets entre le stock et les guichets, les lister, imprimer leurs étiquettes",
		"move packs between the stock and the counters, list them, print their labels.\n\nPACK is a pack number (0–9999, with --block), a range A-B, or a scanned pack\ncode GGG-BBBB-PPPP-C (which names its game and block). States: stock,\ndelivered, received, on-sale, settled, returned, stolen, destroyed.": "déplacer les carnets entre le stock et les guichets, les lister, imprimer leurs étiquettes.\n\nCARNET est un numéro de carnet (0–9999, avec --block), une plage A-B, ou un code de carnet\nscanné GGG-BBBB-PPPP-C (qui nomme son jeu et son bloc). États : stock, delivered, received,\non-sale, settled, returned, stolen, destroyed.",
		"send packs to a counter":                          "livrer des carnets à un guichet",
		"a counter received its packs":                     "un guichet a reçu ses carnets",
		"put packs on sale":                                "mettre des carnets en vente",
		"packs sold out and paid for":                      "carnets vendus et réglés",
		"packs back to the stock (--reason)":               "carnets rendus au stock (--reason)",
		"packs reported stolen: their tickets are refused": "carnets déclarés volés : leurs tickets sont refusés",
		"packs reported destroyed":                         "carnets déclarés détruits",
		"where the packs are":                              "où sont les carnets",
		"a label per pack, with its code and barcode (A4 sheets of 3 × 8, or --roll 62 × 29 mm)":   "une étiquette par carnet, avec son code et son code-barres (planches A4 de 3 × 8, ou --roll 62 × 29 mm)",
		"the counters: add, list, disable, enable, unlock, limit; their desk files (cert, revoke)": "les guichets : add, list, disable, enable, unlock, limit ; leurs fichiers de guichet (cert, revoke)",
		"add a counter (with serve: --out writes its desk file)":                                   "ajouter un guichet (avec serve : --out écrit son fichier de guichet)",
		"the counters, their state and certificates (serial, expiry)":                              "les guichets, leur état et leurs certificats (numéro, expiration)",
		"refuse a counter's claims":                                   "refuser les paiements d'un guichet",
		"accept a disabled counter's claims again":                    "accepter de nouveau les paiements d'un guichet désactivé",
		"end a counter's lock-out (after refused attempts)":           "lever le blocage d'un guichet (après des tentatives refusées)",
		"set a counter's payout limit":                                "fixer le plafond de paiement d'un guichet",
		"a new desk file; its earlier ones revoked unless --keep-old": "un nouveau fichier de guichet ; les précédents révoqués sauf --keep-old",
		"refuse one of a desk's certificates (a desk file stolen)":    "refuser l'un des certificats d'un guichet (un fichier de guichet volé)",
		"copy a whole ledger (file or postgres:// URL): a new ledger, or with --restore one that replaces the original":               "copier tout un registre (fichier ou URL postgres://) : un nouveau registre, ou avec --restore celui qui remplace l'original",
		"a verified backup of the ledger, while it serves":                                                                            "une sauvegarde vérifiée du registre, pendant qu'il sert",
		"upgrade a ledger of an earlier vegas-desk in place":                                                                          "mettre à niveau sur place le registre d'un vegas-desk antérieur",
		"a ledger's capacity test, through vegas-desk serve of --db":                                                                  "l'essai de capacité d'un registre, par le vegas-desk serve de --db",
		"the validation server counters ask (mTLS); --init makes its authority, --check checks, --install-unit prints a systemd unit": "le serveur de validation qu'interrogent les guichets (mTLS) ; --init crée son autorité, --check vérifie, --install-unit écrit une unité systemd",
		"(Windows) serve as a Windows service":                                                                                        "(Windows) servir comme service Windows",
		"make the back office's signing key (asks a passphrase)":                                                                      "créer la clé de signature du siège (demande une phrase secrète)",
		"seal blocks into a ledger for one offline counter":                                                                           "sceller des blocs dans le registre d'un guichet hors ligne",
		"record a counter's payments at the back office (its claims --jsonl)":                                                         "enregistrer au siège les paiements d'un guichet (son claims --jsonl)",
		"sign a block's certificate":                                                                                                  "signer le certificat d'un bloc",
		"check certificates, checkpoints or counter ledgers (a drawn block's seed with --reveal)":                                     "vérifier des certificats, points de contrôle ou registres de guichet (la graine d'un bloc tiré avec --reveal)",
		"sign the journal head, to keep outside the ledger":                                                                           "signer la tête du journal, à garder hors du registre",
		"Help about any command":                                                                                                      "l'aide d'une commande",
		"Help provides help for any command in the application.\nSimply type vegas-desk help [path to command] for full details.":     "vegas-desk help COMMANDE affiche l'aide de la commande.",
		"Generate the autocompletion script for the specified shell":                                                                  "écrire le script de complétion d'un shell",
		"Generate the autocompletion script for bash":                                                                                 "écrire le script de complétion de bash",
		"Generate the autocompletion script for zsh":                                                                                  "écrire le script de complétion de zsh",
		"Generate the autocompletion script for fish":                                                                                 "écrire le script de complétion de fish",
		"Generate the autocompletion script for powershell":                                                                           "écrire le script de complétion de PowerShell",
		"disable completion descriptions":                                                                                             "sans les descriptions",
		"help for %s":                                                                                                                 "l'aide de %s",

		// Flags.
		"put every pack on sale at once (demonstrations)":                    "mettre tous les carnets en vente aussitôt (démonstrations)",
		"a demonstration ledger: a new file, whose packs go on sale at once": "un registre de démonstration : un nouveau fichier, dont les carnets sont en vente aussitôt",
		"game code":                              "code du jeu",
		"JSON output":                            "sortie JSON",
		"operator name (default: $USER)":         "nom de l'opérateur (par défaut : $USER)",
		"64 hex digits (default: a random seed)": "64 chiffres hexadécimaux (par défaut : une graine au hasard)",
		"desk (recorded with a refused lookup)":  "guichet (enregistré avec une recherche refusée)",
		"a payout limit in euros, which may only lower the desk's (default: the desk's in the ledger; none for a desk it does not know)": "un plafond de paiement en euros, qui ne peut qu'abaisser celui du guichet (par défaut : celui du registre ; aucun pour un guichet qu'il ne connaît pas)",
		"operator":                              "opérateur",
		"desk (recorded with a refused search)": "guichet (enregistré avec une recherche refusée)",
		"desk ID (default: the login's desk on a shared ledger, else the host name)":                       "identifiant du guichet (par défaut : celui de la connexion sur un registre partagé, sinon le nom de la machine)",
		"how the ticket was identified: serial or contents":                                                "comment le ticket a été identifié : serial (numéro) ou contents (contenu)",
		"request id: asked again with the same id, a claim answers its first answer":                       "identifiant de la demande : redemandé avec le même, un paiement redonne sa première réponse",
		"winner's identity document: its type, one of CNI, passeport, titre de séjour, permis de conduire": "pièce d'identité du gagnant : son type, CNI, passeport, titre de séjour ou permis de conduire",
		"winner's identity document: its number, as printed on it (a driving licence)":                     "pièce d'identité du gagnant : son numéro, tel qu'imprimé (un permis de conduire)",
		"winner's identity document's machine-readable zone (a CNI, passport or titre de séjour, which give the winner's identity by it): its lines, separated by a line break or a space, or - to read them from the standard input (an MRZ reader)": "bande MRZ de la pièce d'identité du gagnant (une CNI, un passeport ou un titre de séjour, qui donnent l'identité du gagnant par elle) : ses lignes, séparées par un saut de ligne ou une espace, ou - pour les lire sur l'entrée standard (un lecteur MRZ)",
		"winner's name (from the identity threshold)": "nom du gagnant (à partir du seuil d'identité)",
		"desk ID":                            "identifiant du guichet",
		"operator name":                      "nom de l'opérateur",
		"why the claim is voided (required)": "pourquoi le paiement est annulé (obligatoire)",
		"block number (default: all)":        "numéro du bloc (par défaut : tous)",
		"CSV output":                         "sortie CSV",
		"this desk only":                     "ce guichet seulement",
		"game code (default: all)":           "code du jeu (par défaut : tous)",
		"a counter ledger's journal with its hashes, for import-claims at the back office": "le journal d'un registre de guichet avec ses empreintes, pour import-claims au siège",
		"from this date (local time)": "à partir de cette date (heure locale)",
		"before this date":            "avant cette date",
		"add the winners' identities (personal data) to --csv or --json":             "ajouter l'identité des gagnants (données personnelles) à --csv ou --json",
		"the day report as CSV (with --day)":                                         "le rapport du jour en CSV (avec --day)",
		"one counter's day report (with --desk)":                                     "le rapport du jour d'un guichet (avec --desk)",
		"the day report as PDF (with --day)":                                         "le rapport du jour en PDF (avec --day)",
		"print the day report on this CUPS queue (with --day; lpstat -e lists them)": "imprimer le rapport du jour sur cette file CUPS (avec --day ; lpstat -e les liste)",
		"last day of payment, until 23:59:59 (default, and none: the claim-days setting after the end of sale, 60 unless changed)": "dernier jour de paiement, jusqu'à 23:59:59 (par défaut, et none : le réglage claim-days après la fin de vente, 60 sauf changement)",
		"last day of sale, until 23:59:59 (none: unset)":                                                  "dernier jour de vente, jusqu'à 23:59:59 (none : aucun)",
		"first day of sale, from 00:00 (none: unset)":                                                     "premier jour de vente, dès 00:00 (none : aucun)",
		"this verdict only: stolen (a ticket of a stolen pack), unknown-serial, not-activated, expired …": "ce verdict seulement : stolen (ticket d'un carnet volé), unknown-serial, not-activated, expired …",
		"the closed cases too": "les dossiers clos aussi",
		"the decision that closes the case: the money recovered, written off… (required)": "la décision qui clôt le dossier : l'argent récupéré, passé en perte… (obligatoire)",
		"what the receipt says, as JSON":                                          "ce que dit le reçu, en JSON",
		"PDF file to write (- for standard output)":                               "fichier PDF à écrire (- pour la sortie standard)",
		"print it on this CUPS queue (lpstat -e lists them)":                      "l'imprimer sur cette file CUPS (lpstat -e les liste)",
		"the counter (required)":                                                  "le guichet (obligatoire)",
		"PDF file to write":                                                       "fichier PDF à écrire",
		"first day of the period (required)":                                      "premier jour de la période (obligatoire)",
		"last day of the period, included (required)":                             "dernier jour de la période, inclus (obligatoire)",
		"days from the end of sale to the claim deadline when none is given":      "jours de la fin de vente à la forclusion quand aucune n'est donnée",
		"the retailers' commission on their sales, in percent (5.5)":              "la commission des détaillants sur leurs ventes, en pour cent (5.5)",
		"the prize, in euros, from which a payment records the winner's identity": "le gain, en euros, à partir duquel un paiement enregistre l'identité du gagnant",
		"block number": "numéro du bloc",
		"operator name, in the journal entry that destroys the packs (default: $USER)": "nom de l'opérateur, dans l'écriture qui détruit les carnets (par défaut : $USER)",
		"packs A-B (or one pack)": "carnets A-B (ou un carnet)",
		"a journal head kept outside the ledger (a receipt, a checkpoint): the chain must still hold it unchanged": "une tête de journal gardée hors du registre (un reçu, un point de contrôle) : la chaîne doit la tenir inchangée",
		"a counter ledger: the back office's public key, which must have signed its seal":                          "registre de guichet : la clé publique du siège, qui doit avoir signé son sceau",
		"PNG file to write": "fichier PNG à écrire",
		"the counter: the one packs are delivered to, or that holds them":                 "le guichet : celui à qui les carnets sont livrés, ou qui les tient",
		"why (return, stolen, destroyed)":                                                 "pourquoi (return, stolen, destroyed)",
		"this counter's packs only":                                                       "les carnets de ce guichet seulement",
		"packs in this state only (stock lists the packs never moved)":                    "les carnets dans cet état seulement (stock liste ceux jamais déplacés)",
		"print them on this CUPS queue (lpstat -e lists them)":                            "les imprimer sur cette file CUPS (lpstat -e les liste)",
		"one label a page, for a roll of 62 × 29 mm labels (default: A4 sheets of 3 × 8)": "une étiquette par page, pour un rouleau d'étiquettes de 62 × 29 mm (par défaut : planches A4 de 3 × 8)",
		"(--out) the authority's directory (serve --init)":                                "(--out) le répertoire de l'autorité (serve --init)",
		"the counter's payout limit in euros":                                             "le plafond de paiement du guichet, en euros",
		"write the counter's desk file for the validation server (vegas-desk serve) here": "écrire ici le fichier de guichet pour le serveur de validation (vegas-desk serve)",
		"(--out) the file holding the authority key's passphrase":                         "(--out) le fichier qui tient la phrase secrète de la clé de l'autorité",
		"the authority's directory (serve --init)":                                        "le répertoire de l'autorité (serve --init)",
		"keep the desk's earlier certificates (its other desk files) accepted":            "garder acceptés les certificats précédents du guichet (ses autres fichiers)",
		"the desk file to write":                                                          "le fichier de guichet à écrire",
		"the file holding the authority key's passphrase":                                 "le fichier qui tient la phrase secrète de la clé de l'autorité",
		"the certificate to revoke: its serial (desks list) or its desk file":             "le certificat à révoquer : son numéro (desks list) ou son fichier de guichet",
		"make TO the ledger FROM was copied from (or FROM itself): its id, desk files and counter ledgers; the original, if it answers, is marked replaced and serves no more": "faire de VERS le registre dont DE fut copié (ou DE lui-même) : son identifiant, ses fichiers et registres de guichet ; l'original, s'il répond, est marqué remplacé et ne sert plus",
		"the directory of the backups":                                                                                                    "le répertoire des sauvegardes",
		"keep only the N most recent backups of this ledger in --dir (0: all)":                                                            "ne garder que les N sauvegardes les plus récentes de ce registre dans --dir (0 : toutes)",
		"where the backup taken before the upgrade goes (default: beside a file; the working directory for a database)":                   "où va la sauvegarde faite avant la mise à niveau (par défaut : à côté du fichier ; le répertoire courant pour une base)",
		"say what the upgrade would change, and change nothing":                                                                           "dire ce que la mise à niveau changerait, sans rien changer",
		"how many counters claim at once (1–64)":                                                                                          "combien de guichets paient à la fois (1–64)",
		"(--server) the authority's directory, which signs the counters' desk files":                                                      "(--server) le répertoire de l'autorité, qui signe les fichiers des guichets",
		"JSON output (the progress lines go to the standard error)":                                                                       "sortie JSON (l'avancement va sur la sortie d'erreur)",
		"(--server) the file holding the authority key's passphrase":                                                                      "(--server) le fichier qui tient la phrase secrète de la clé de l'autorité",
		"how long they claim (at most 3600)":                                                                                              "combien de secondes ils paient (3600 au plus)",
		"measure the validation server at this URL (vegas-desk serve of --db; several separated by commas), its counters with desk files": "mesurer le serveur de validation à cette URL (le vegas-desk serve de --db ; plusieurs séparées par des virgules), ses guichets avec des fichiers de guichet",
		"run on a ledger that is not a demonstration ledger: its tickets get paid":                                                        "tourner sur un registre qui n'est pas de démonstration : ses tickets sont payés",
		"take a verified backup of the ledger into DIR every --backup-every":                                                              "faire une sauvegarde vérifiée du registre dans RÉP toutes les --backup-every",
		"(--backup-dir) the time between two backups":                                                                                     "(--backup-dir) le temps entre deux sauvegardes",
		"(--backup-dir) the backups kept, the most recent":                                                                                "(--backup-dir) les sauvegardes gardées, les plus récentes",
		"the operator's own server certificate (PEM), instead of the one --init makes":                                                    "le certificat de serveur propre à l'opérateur (PEM), au lieu de celui que crée --init",
		"check the settings (the ledger, the authority, the server's key, the addresses are free) and exit":                               "vérifier les réglages (le registre, l'autorité, la clé du serveur, les adresses libres) et sortir",
		"the authority's directory":                                                                                                       "le répertoire de l'autorité",
		"(--init) the server's names and addresses, comma-separated, in its certificate":                                                  "(--init) les noms et adresses du serveur, séparés par des virgules, dans son certificat",
		"make the ledger's certificate authority and the server's certificate in --dir":                                                   "créer l'autorité de certification du registre et le certificat du serveur dans --dir",
		"print a systemd unit that serves the ledger with these settings (start at boot, restart on failure)":                             "écrire une unité systemd qui sert le registre avec ces réglages (démarrage au boot, relance après une panne)",
		"its private key (PEM)":                             "sa clé privée (PEM)",
		"the address to listen on (HOST:PORT)":              "l'adresse d'écoute (HÔTE:PORT)",
		"the log lines on the standard error: text or json": "les lignes du journal sur la sortie d'erreur : text ou json",
		"the connections one desk may hold":                 "les connexions qu'un guichet peut tenir",
		"serve GET /metrics (Prometheus) and GET /healthz on this address (HOST:PORT), plain HTTP, no desk certificate":                                 "servir GET /metrics (Prometheus) et GET /healthz à cette adresse (HÔTE:PORT), en HTTP simple, sans certificat de guichet",
		"(--init) the file holding the authority key's passphrase":                                                                                      "(--init) le fichier qui tient la phrase secrète de la clé de l'autorité",
		"(--install-unit, PostgreSQL) the pgpass file holding the password, the service's credential (default /etc/vegas-desk/pgpass)":                  "(--install-unit, PostgreSQL) le fichier pgpass qui tient le mot de passe, l'accès du service (par défaut /etc/vegas-desk/pgpass)",
		"(--install-unit) the account the service runs as (default: yours)":                                                                             "(--install-unit) le compte du service (par défaut : le vôtre)",
		"with --restore: the original cannot be reached to be marked replaced and is gone for good; every desk then needs a new desk file (desks cert)": "avec --restore : l'original ne peut être joint pour être marqué remplacé et a disparu pour de bon ; chaque guichet a alors besoin d'un nouveau fichier de guichet (desks cert)",
		"the key file to write (never replaced)":                                                                                                        "le fichier de clé à écrire (jamais remplacé)",
		"read the passphrase from this file (or VEGAS_DESK_PASSPHRASE; else it is asked twice)":                                                         "lire la phrase secrète dans ce fichier (ou VEGAS_DESK_PASSPHRASE ; sinon elle est demandée deux fois)",
		"a block to seal (repeat, or N,M; default: every block, at most 8)":                                                                             "un bloc à sceller (répété, ou N,M ; par défaut : chaque bloc, 8 au plus)",
		"the counter's desk id (required)":                                                                                                              "l'identifiant du guichet (obligatoire)",
		"game code of the blocks":                                                                                                                       "code du jeu des blocs",
		"the back office's key file (keygen; or VEGAS_DESK_KEY_FILE)":                                                                                   "le fichier de clé du siège (keygen ; ou VEGAS_DESK_KEY_FILE)",
		"the payout limit to seal, in euros, which may only lower the desk's (default: the desk's in the ledger; required for a desk it does not know)": "le plafond de paiement à sceller, en euros, qui ne peut qu'abaisser celui du guichet (par défaut : celui du registre ; obligatoire pour un guichet qu'il ne connaît pas)",
		"the counter ledger file to write (never replaced)":                                                                                             "le fichier du registre de guichet à écrire (jamais remplacé)",
		"read the key file's passphrase from this file (or VEGAS_DESK_PASSPHRASE; else it is asked)":                                                    "lire la phrase secrète de la clé dans ce fichier (ou VEGAS_DESK_PASSPHRASE ; sinon elle est demandée)",
		"JSON output (the fields, and the signed text as \"document\")":                                                                                 "sortie JSON (les champs, et le texte signé comme \"document\")",
		"write it to FILE: a PDF when FILE ends in .pdf, else the signed text (default: the text on standard output)":                                   "l'écrire dans FICHIER : un PDF si FICHIER finit par .pdf, sinon le texte signé (par défaut : le texte sur la sortie standard)",
		"the back office's public key, as keygen printed it (required)":                                                                                 "la clé publique du siège, telle que keygen l'a écrite (obligatoire)",
		"write the signed text to FILE (default: standard output)":                                                                                      "écrire le texte signé dans FICHIER (par défaut : la sortie standard)",

		"write the payment's receipt, the original, to this PDF file":                          "écrire le reçu du paiement, l'original, dans ce fichier PDF",
		"print the payment's receipt, the original, on this CUPS queue (lpstat -e lists them)": "imprimer le reçu du paiement, l'original, sur cette file CUPS (lpstat -e les liste)",
		// A block no single party chose (seed.go).
		"a block no single party chose: each party's secret and commitment, recorded before the generation":                                                                                             "un bloc qu'aucune partie n'a choisi seule : le secret et l'engagement de chaque partie, enregistrés avant la génération",
		"draw a party's secret (a file kept to yourself) and print its commitment (the file handed over)":                                                                                               "tirer le secret d'une partie (un fichier gardé pour soi) et écrire son engagement (le fichier remis)",
		"record a commitment file in the journal, signed, before the generation it draws":                                                                                                               "enregistrer un fichier d'engagement au journal, signé, avant la génération qu'il tire",
		"game code of the block the secret is to draw":                                                                                                                                                  "code du jeu du bloc que le secret doit tirer",
		"operator or auditor (required)":                                                                                                                                                                "operator (l'opérateur) ou auditor (le contrôleur) (obligatoire)",
		"the secret file to write (0600, never replaced): keep it to yourself until the generation":                                                                                                     "le fichier secret à écrire (0600, jamais remplacé) : gardez-le pour vous jusqu'à la génération",
		"write the commitment file, to hand to the back office, to FILE (default: standard output)":                                                                                                     "écrire le fichier d'engagement, à remettre au siège, dans FICHIER (par défaut : la sortie standard)",
		"draw the seed from the two recorded commitments (seed record): 64 hex digits or a commitment file each, comma-separated":                                                                       "tirer la graine des deux engagements enregistrés (seed record) : 64 chiffres hexadécimaux ou un fichier d'engagement chacun, séparés par une virgule",
		"with --commitments: the operator's and the auditor's secret files (seed commit), comma-separated":                                                                                              "avec --commitments : les fichiers secrets de l'opérateur et du contrôleur (seed commit), séparés par une virgule",
		"a drawn block's certificate: the operator's and the auditor's secret files, comma-separated: the seed and the block are computed again from them":                                              "le certificat d'un bloc tiré : les fichiers secrets de l'opérateur et du contrôleur, séparés par une virgule : la graine et le bloc en sont recalculés",
		"add this many desks at once, PREFIX1 … PREFIXN, in one transaction; --out is then the new folder of their desk files":                                                                          "ajouter autant de guichets d'un coup, PRÉFIXE1 … PRÉFIXEN, en une transaction ; --out est alors le nouveau dossier de leurs fichiers de guichet",
		"(--count) the desks' ids: this, then their number":                                                                                                                                             "(--count) les identifiants des guichets : ceci, puis leur numéro",
		"stop after this many answers (0: when --seconds are over)":                                                                                                                                     "s'arrêter après autant de réponses (0 : à la fin des --seconds)",
		"claim through the desk files of this folder (desks add --count --out), each claim by the next desk in turn on a new connection, as a network of many counters does (a demonstration ledger's)": "payer par les fichiers de guichet de ce dossier (desks add --count --out), chaque paiement par le guichet suivant à tour de rôle sur une nouvelle connexion, comme un réseau de nombreux guichets (d'un registre de démonstration)",
		"claim the unpaid winning tickets of the blocks on sale, each once, in a random order (a demonstration ledger's), rather than random tickets":                                                   "payer les tickets gagnants non payés des blocs en vente, chacun une fois, dans un ordre aléatoire (d'un registre de démonstration), plutôt que des tickets au hasard",
	}
}

// frenchCompletionLong are cobra's texts of the completion command ("")
// and of its subcommands, in French; %[1]s is the program's name.
var frenchCompletionLong = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"": `Écrire le script de complétion de %[1]s pour le shell donné.
Voir l'aide de chaque sous-commande pour l'installer.
`,
		"bash": `Écrire le script de complétion de bash.

Il demande le paquet bash-completion : s'il n'est pas installé, installez-le
avec le gestionnaire de paquets du système (apt install bash-completion).

Pour la complétion dans le shell ouvert :

	source <(%[1]s completion bash)

Pour chaque nouveau shell, une fois pour toutes :

#### Linux :

	%[1]s completion bash > /etc/bash_completion.d/%[1]s

#### macOS :

	%[1]s completion bash > $(brew --prefix)/etc/bash_completion.d/%[1]s

Elle agit dans les shells ouverts ensuite.
`,
		"zsh": `Écrire le script de complétion de zsh.

Si la complétion n'est pas déjà active dans votre shell, activez-la, une
fois pour toutes :

	echo "autoload -U compinit; compinit" >> ~/.zshrc

Pour la complétion dans le shell ouvert :

	source <(%[1]s completion zsh)

Pour chaque nouveau shell, une fois pour toutes :

#### Linux :

	%[1]s completion zsh > "${fpath[1]}/_%[1]s"

#### macOS :

	%[1]s completion zsh > $(brew --prefix)/share/zsh/site-functions/_%[1]s

Elle agit dans les shells ouverts ensuite.
`,
		"fish": `Écrire le script de complétion de fish.

Pour la complétion dans le shell ouvert :

	%[1]s completion fish | source

Pour chaque nouveau shell, une fois pour toutes :

	%[1]s completion fish > ~/.config/fish/completions/%[1]s.fish

Elle agit dans les shells ouverts ensuite.
`,
		"powershell": `Écrire le script de complétion de PowerShell.

Pour la complétion dans le shell ouvert :

	%[1]s completion powershell | Out-String | Invoke-Expression

Pour chaque nouveau shell, ajoutez la sortie de cette commande à votre
profil PowerShell.
`,
	}
})
