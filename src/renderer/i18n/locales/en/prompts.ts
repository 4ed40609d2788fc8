/** What a connection asks: an unknown host key, a password, a key passphrase, 2FA. */
export default {
  hostKey: {
    title: 'Unknown server: check its fingerprint',
    first: 'This is the first connection to <strong>{{host}}</strong>{{where}}. Compare the fingerprint with the one your administrator gave you (on the server: <code>{{command}}</code>).',
    port: ' (port {{port}})',
    hop: ' (hop {{hop}} of the jump chain)',
    keyType: 'Key type',
    fingerprint: 'Fingerprint',
    acceptOnce: 'Accept once',
    acceptSave: 'Accept and save',
  },
  passwordTitle: 'Password for {{user}}@{{host}}',
  password: 'Password',
  passphraseTitle: 'Key passphrase',
  passphrase: 'Passphrase for {{key}}',
  serverAsks: 'The server asks',
} as const;
