/* Red-team probe (tests/suite_rt_confine.sh, finding RC3): SysV shared memory is no file: the
 * sandbox (Landlock) and the watch do not see a write into another program's segment. */
/* sysv mk KEY: create a SysV shm segment holding "orig" (it persists); sysv write KEY TEXT;
 * sysv read KEY; sysv rm KEY */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
int main(int c,char**v){ if(c<3)return 2; key_t k=(key_t)strtol(v[2],0,0);
 if(!strcmp(v[1],"mk")){int id=shmget(k,4096,IPC_CREAT|0600); if(id<0){perror("shmget");return 1;} char*p=shmat(id,0,0); strcpy(p,"orig"); shmdt(p); return 0;}
 int id=shmget(k,0,0); if(id<0){perror("shmget");return 1;}
 if(!strcmp(v[1],"rm")) return shmctl(id,IPC_RMID,0)!=0;
 char*p=shmat(id,0,!strcmp(v[1],"read")?SHM_RDONLY:0); if(p==(void*)-1){perror("shmat");return 1;}
 if(!strcmp(v[1],"write")) strcpy(p,v[3]); else printf("%s\n",p); return 0;}
