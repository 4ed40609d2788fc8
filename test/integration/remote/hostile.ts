/** Values an attacker (or an unlucky profile field) could send to a remote shell; `canary` must never appear. */
export const HOSTILE_VALUES = (canary: string): string[] => [
  '; rm -rf ~',
  `; touch ${canary}`,
  `$(touch ${canary})`,
  `\`touch ${canary}\``,
  `'; touch ${canary}; echo '`,
  `"; touch ${canary}; echo "`,
  `x\ntouch ${canary}`,
  `x\r\ntouch ${canary}`,
  `&& touch ${canary} ||`,
  `| touch ${canary}`,
  `$HOME ~ * ? [a] {a,b} \\ !! %`,
  `-rf`,
  `A=B`,
  '',
];
